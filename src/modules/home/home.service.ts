import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { fromJson } from '../../db/json.ts';
import { fromCents } from '../../domain/money.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { type AuthContext, hasScope } from '../../http/auth.ts';
import type { DomainEvent } from '../../outbox/emit.ts';
import {
  countJobsToInvoice,
  countQuotesWithStatus,
  countRequestsWithStatus,
  latestEvents,
  overdueInvoices,
  paymentsByMonth,
  setupSteps,
  usersByUuid,
} from './home.repo.ts';
import { workspaceTimezone } from '../workspace/workspace.repo.ts';
import type { Activity, HomeQuery, HomeSummary } from './home.schemas.ts';

/** Each event's resource (its path under /api/v1) and the read scope that shows it. */
const EVENT_RESOURCE: Record<DomainEvent, string> = {
  new_request: 'requests',
  request_updated: 'requests',
  request_deleted: 'requests',
  new_contact: 'contacts',
  contact_updated: 'contacts',
  contact_deleted: 'contacts',
  new_quote: 'quotes',
  quote_accepted: 'quotes',
  quote_updated: 'quotes',
  quote_deleted: 'quotes',
  new_job: 'jobs',
  job_updated: 'jobs',
  job_deleted: 'jobs',
  new_invoice: 'invoices',
  invoice_sent: 'invoices',
  invoice_paid: 'invoices',
  invoice_updated: 'invoices',
  invoice_deleted: 'invoices',
  payment_received: 'invoices',
  new_event: 'events',
  event_updated: 'events',
  event_deleted: 'events',
};
/** The resources whose read scope is the resource's own name (`quotes:read`). */
export const HOME_READ_SCOPES = [...new Set(Object.values(EVENT_RESOURCE))].map((r) => `${r}:read`);

/**
 * The first day of the month `back` months before `date`'s month (`YYYY-MM-DD`), by
 * arithmetic on the month count: Home asks 13 times per visit, and a Date and its
 * toISOString() each time were a twentieth of the request's CPU.
 */
export function monthStart(date: string, back: number): string {
  const months = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 - back;
  const month = (months % 12) + 1;
  return `${Math.floor(months / 12)}-${month < 10 ? '0' : ''}${month}-01`;
}

/** The events a key's scopes may read, per scope list (a key's context keeps its list). */
const readableByScopes = new WeakMap<readonly string[], DomainEvent[]>();
function readableEventsOf(scopes: readonly string[]): DomainEvent[] {
  let events = readableByScopes.get(scopes);
  if (!events) {
    events = (Object.keys(EVENT_RESOURCE) as DomainEvent[]).filter((e) => hasScope(scopes, `${EVENT_RESOURCE[e]}:read`));
    readableByScopes.set(scopes, events);
  }
  return events;
}

interface EventPayload {
  data?: { id?: number; invoice_id?: number; number?: number; name?: string | null; title?: string | null; first_name?: string; last_name?: string; status?: string; created_by?: string | { id?: string } | null };
}

/**
 * Home (A2): the office's counts, 12 months of payments and the latest activity,
 * in one read. Each section needs its resource's read scope; without it, null
 * (activity: only the events of readable resources).
 */
export async function homeSummary(db: Kysely<DB>, auth: AuthContext, q: HomeQuery, now = Date.now()): Promise<HomeSummary> {
  const ws = auth.workspaceId;
  const can = (resource: string) => hasScope(auth.scopes, `${resource}:read`);
  const readableEvents = readableEventsOf(auth.scopes);

  const today = zonedDate(now, await workspaceTimezone(db, ws));
  const [newRequests, quotesAwaiting, jobsToInvoice, overdue, payments, events, getStarted] = await Promise.all([
    can('requests') ? countRequestsWithStatus(db, ws, 'new') : null,
    can('quotes') ? countQuotesWithStatus(db, ws, 'awaiting_response') : null,
    can('jobs') ? countJobsToInvoice(db, ws) : null,
    can('invoices') ? overdueInvoices(db, ws, today) : null,
    can('invoices') ? paymentsPerMonth(db, ws, today) : null,
    latestEvents(db, ws, readableEvents, q.activity_limit ?? 15),
    hasScope(auth.scopes, 'workspace:write') ? setupSteps(db, ws) : null,
  ]);

  const activity: Activity[] = [];
  const creators = new Set<string>();
  for (const row of events) {
    const data = fromJson<EventPayload>(row.payload)?.data ?? {};
    const event = row.event as DomainEvent;
    const payment = event === 'payment_received';
    const id = payment ? data.invoice_id : data.id;
    if (typeof id !== 'number') continue;
    const contactName = event.includes('contact') ? `${data.first_name ?? ''} ${data.last_name ?? ''}`.trim() || null : null;
    // A record names its creator by UUID, or (expanded reads) as a user object.
    const creator = typeof data.created_by === 'string' ? data.created_by : (data.created_by?.id ?? null);
    if (creator) creators.add(creator);
    activity.push({
      event,
      at: row.created_at,
      resource: EVENT_RESOURCE[event],
      id,
      number: payment || typeof data.number !== 'number' ? null : data.number,
      name: payment ? null : (contactName ?? data.name ?? data.title ?? null),
      status: payment ? null : (data.status ?? null),
      // The payload's `created_by` names who made the record (A1: a session's own user).
      user: creator ? { id: creator, first_name: null, last_name: null } : null,
    });
  }
  const users = new Map((await usersByUuid(db, ws, [...creators])).map((u) => [u.user_id, u]));
  for (const a of activity) {
    const u = a.user && users.get(a.user.id);
    a.user = u ? { id: u.user_id, first_name: u.first_name, last_name: u.last_name } : null;
  }

  return {
    new_requests: newRequests,
    quotes_awaiting_response: quotesAwaiting,
    jobs_to_invoice: jobsToInvoice,
    overdue_invoices: overdue && { count: overdue.count, amount_due: fromCents(overdue.dueCents) },
    payments_by_month: payments,
    get_started: getStarted,
    activity,
  };
}

/** The last 12 calendar months in the workspace's timezone, oldest first, empty months as 0. */
async function paymentsPerMonth(db: Kysely<DB>, ws: number, today: string) {
  const rows = new Map((await paymentsByMonth(db, ws, monthStart(today, 11))).map((r) => [r.month, r]));
  return Array.from({ length: 12 }, (_, i) => {
    const month = monthStart(today, 11 - i).slice(0, 7);
    const r = rows.get(month);
    return { month, amount: fromCents(r?.cents ?? 0), count: r?.count ?? 0 };
  });
}
