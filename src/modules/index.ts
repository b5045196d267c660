import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/context.ts';
import { meRoutes } from './accounts/me.routes.ts';
import { automationsRoutes } from './automations/automations.routes.ts';
import { calendarFeedRoutes } from './calendar-feeds/calendar-feeds.routes.ts';
import { commentsRoutes } from './comments/comments.routes.ts';
import { contactsRoutes } from './contacts/contacts.routes.ts';
import { customFieldsRoutes } from './custom-fields/custom-fields.routes.ts';
import { deletionsRoutes } from './deletions/deletions.routes.ts';
import { eventsRoutes } from './events/events.routes.ts';
import { exportsRoutes } from './exports/exports.routes.ts';
import { homeRoutes } from './home/home.routes.ts';
import { hubLinksRoutes } from './hub/hub-links.routes.ts';
import { importsRoutes } from './imports/imports.routes.ts';
import { invoicesRoutes } from './invoices/invoices.routes.ts';
import { jobsRoutes } from './jobs/jobs.routes.ts';
import { keysRoutes } from './keys/keys.routes.ts';
import { notificationsRoutes } from './notifications/notifications.routes.ts';
import { pdfRoutes } from './pdf/pdf.routes.ts';
import { propertiesRoutes } from './properties/properties.routes.ts';
import { quoteTemplatesRoutes } from './quote-templates/quote-templates.routes.ts';
import { quotesRoutes } from './quotes/quotes.routes.ts';
import { reportsRoutes } from './reports/reports.routes.ts';
import { requestsRoutes } from './requests/requests.routes.ts';
import { servicesRoutes } from './services/services.routes.ts';
import { taxRatesRoutes } from './tax-rates/tax-rates.routes.ts';
import { teamRoutes } from './team/team.routes.ts';
import { timeEntriesRoutes } from './time-entries/time-entries.routes.ts';
import { timesheetsRoutes } from './timesheets/timesheets.routes.ts';
import { uploadsRoutes } from './uploads/uploads.routes.ts';
import { usersRoutes } from './users/users.routes.ts';
import { deliveriesRoutes } from './webhooks/deliveries.routes.ts';
import { workspaceRoutes } from './workspace/workspace.routes.ts';

/** Every resource's routes, registered under /api/v1 (one line each). */
export const modules: FastifyPluginAsync<AppContext>[] = [
  contactsRoutes,
  propertiesRoutes,
  usersRoutes,
  workspaceRoutes,
  uploadsRoutes,
  commentsRoutes,
  eventsRoutes,
  timeEntriesRoutes,
  timesheetsRoutes,
  requestsRoutes,
  quotesRoutes,
  jobsRoutes,
  invoicesRoutes,
  servicesRoutes,
  taxRatesRoutes,
  quoteTemplatesRoutes,
  customFieldsRoutes,
  notificationsRoutes,
  deletionsRoutes,
  hubLinksRoutes,
  pdfRoutes,
  meRoutes,
  keysRoutes,
  deliveriesRoutes,
  teamRoutes,
  homeRoutes,
  automationsRoutes,
  calendarFeedRoutes,
  reportsRoutes,
  importsRoutes,
  exportsRoutes,
];
