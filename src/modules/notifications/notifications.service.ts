import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { fromJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { countWithin, nextNumber } from '../../db/numbering.ts';
import { propertyRef } from '../../db/related.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import type { AuthContext } from '../../http/auth.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { queueMessage } from '../../outbox/messages.ts';
import { findEventDetail } from '../events/events.repo.ts';
import { updateInvoice } from '../invoices/invoices.service.ts';
import { invoiceOf, invoices } from '../invoices/invoices.repo.ts';
import { ADMINS, notifyRoles } from '../notifications-internal/internal-notifications.ts';
import { quoteOf, quotes } from '../quotes/quotes.repo.ts';
import { updateQuote } from '../quotes/quotes.service.ts';
import { findWorkspace, type Settings, settingsOf } from '../workspace/workspace.service.ts';
import { type HubLinkConfig, mintHubLink } from '../hub/hub.service.ts';
import { contactsForMessage, parentLinks } from './notifications.repo.ts';
import type { NotificationBody, NotificationQueued } from './notifications.schemas.ts';
import { documentView } from '../../domain/document-view.ts';
import { workspaceCurrency } from '../../domain/format.ts';
import { formatDate, formatMoney } from '../../domain/format.ts';
import { logoUrl } from '../workspace/logo.ts';
import { businessValues, type NotificationType, type Placeholders, pricedValues, render } from './templates.ts';

// SPEC Notifications: `POST /notifications` hands one customer message to the
// email/SMS pipeline. Everything happens in one transaction: the status the
// send moves (quote -> awaiting_response, invoice -> sent) with its webhook
// (D16) and team notifications, and the queued messages. A 400 or 404 leaves
// nothing behind.

type Workspace = NonNullable<Awaited<ReturnType<typeof findWorkspace>>>;

interface Customer {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  info: string | null;
}

/** A type's own template values; the service adds the business and contact ones and the hub link. */
type Own<T extends NotificationType> = Omit<
  Placeholders<T>,
  'business_name' | 'business_address' | 'business_phone' | 'business_email' | 'business_website' | 'business_tax_number' | 'contact_name' | 'contact_first_name' | 'contact_email' | 'link'
>;

/** What one type's entity gives the message: its customer and the template values. */
interface Prepared {
  customer: Customer;
  values: Record<string, string>;
}

interface Target {
  module: NotificationQueued['module'];
  moduleType: 'quote' | 'invoice' | 'event' | 'contact';
  /** SPEC's channel table: invoices go by email only. */
  sms: boolean;
  /** E7: where the message's hub link opens, after `/hub/<token>`. */
  hubPath(id: number): string;
  /** Loads and checks the entity (404, 400) and makes the send's status move. */
  prepare(trx: Kysely<DB>, auth: Actor, id: number, w: Workspace): Promise<Prepared>;
}

/** Who sends: a key's user, or nobody (the daily run, E5, sends scheduled invoices). */
export type Actor = Pick<AuthContext, 'workspaceId'> & { userId: string | null };

/**
 * D19, SPEC Errors: the recipient is the first of `contactIds` (in order of
 * preference) that is a contact with an email address; none is 400.
 */
async function customerOf(trx: Kysely<DB>, workspaceId: number, contactIds: (number | null | undefined)[], resource: string): Promise<Customer> {
  const ids = contactIds.filter((id): id is number => typeof id === 'number');
  const found = await contactsForMessage(trx, workspaceId, ids);
  for (const id of ids) {
    const contact = found.find((c) => c.id === id);
    if (contact?.email) return { ...contact, email: contact.email };
  }
  throw new AppError(400, `${resource} has no contact with an email address`);
}

const today = (w: Workspace) => zonedDate(Date.now(), w.timezone);

/**
 * A send never takes back the customer's answer or a payment: these keep their
 * status (the message still goes, as a copy or a reminder). Any other status
 * moves to the sent one (SPEC "Moves that are shown").
 */
const KEEPS_QUOTE = ['awaiting_response', 'accepted', 'awaiting_deposit'];
const KEEPS_INVOICE = ['sent', 'paid', 'partially_paid', 'overdue'];

const PAYMENT_TERMS: Record<string, string> = {
  due_on_receipt: 'on receipt',
  net_7: 'within 7 days',
  net_14: 'within 14 days',
  net_30: 'within 30 days',
  net_60: 'within 60 days',
  net_90: 'within 90 days',
};

/** A quote's customer and the values every quote message shows (locked: a send and an answer do not cross). */
async function quoteMessage(trx: Kysely<DB>, id: number, w: Workspace) {
  const row = await quotes.find(trx, w.id, id, { lock: true });
  if (!row) throw notFound('Quote');
  const quote = quoteOf(row);
  const customer = await customerOf(trx, w.id, [quote.contact_id], 'Quote');
  const currency = workspaceCurrency(w); // F101
  const values = {
    ...pricedValues(documentView(quote, currency), currency), // E10, with deposit
    number: String(quote.number),
    name: quote.name ?? '',
    date: formatDate(quote.date ?? today(w)),
    expire_on: formatDate(quote.expire_on),
  };
  return { quote, customer, values };
}

/** An invoice's customer and the values every invoice message shows. */
async function invoiceMessage(trx: Kysely<DB>, id: number, w: Workspace) {
  const row = await invoices.find(trx, w.id, id, { lock: true });
  if (!row) throw notFound('Invoice');
  const invoice = invoiceOf(row);
  const customer = await customerOf(trx, w.id, [invoice.contact_id], 'Invoice'); // D32
  const currency = workspaceCurrency(w); // F101
  const values = {
    ...pricedValues(documentView(invoice, currency), currency), // E10
    number: String(invoice.number), // E1
    name: invoice.name ?? String(invoice.id),
    amount_paid: invoice.amount_paid > 0 ? formatMoney(invoice.amount_paid, currency) : '',
    balance: formatMoney(invoice.balance, currency),
    date: formatDate(invoice.date ?? today(w)),
    due_date: invoice.due_date ? formatDate(invoice.due_date) : (PAYMENT_TERMS[invoice.payment_terms] ?? ''),
    payment_instructions: invoice.payment_instructions ?? '',
  };
  return { invoice, customer, values };
}

const TARGETS: Record<NotificationType, Target> = {
  quote_to_customer: {
    module: 'quotes',
    moduleType: 'quote',
    sms: true,
    hubPath: (id) => `/quotes/${id}`,
    async prepare(trx, auth, id, w) {
      const { quote, customer, values } = await quoteMessage(trx, id, w);
      if (!KEEPS_QUOTE.includes(quote.status)) await updateQuote(trx, w.id, auth.userId, id, { status: 'awaiting_response' });
      return { customer, values: { ...values, message: quote.message ?? '', payment_instructions: quote.payment_instructions ?? '' } satisfies Own<'quote_to_customer'> };
    },
  },
  // E24: the follow-up moves nothing; the reminder run checked the status under the same lock.
  quote_follow_up: {
    module: 'quotes',
    moduleType: 'quote',
    sms: true,
    hubPath: (id) => `/quotes/${id}`,
    async prepare(trx, _auth, id, w) {
      const { customer, values } = await quoteMessage(trx, id, w);
      return { customer, values: { ...values, sent_on: '', days_since_sent: '' } satisfies Own<'quote_follow_up'> };
    },
  },
  invoice_to_customer: {
    module: 'invoices',
    moduleType: 'invoice',
    sms: false,
    hubPath: (id) => `/invoices/${id}`,
    async prepare(trx, _auth, id, w) {
      const { invoice, customer, values } = await invoiceMessage(trx, id, w);
      if (!KEEPS_INVOICE.includes(invoice.status)) await updateInvoice(trx, w.id, id, { status: 'sent' });
      return { customer, values: { ...values, message: invoice.message ?? '' } satisfies Own<'invoice_to_customer'> };
    },
  },
  // E24: by email only, as the invoice itself (SPEC's channel table).
  invoice_reminder: {
    module: 'invoices',
    moduleType: 'invoice',
    sms: false,
    hubPath: (id) => `/invoices/${id}`,
    async prepare(trx, _auth, id, w) {
      const { customer, values } = await invoiceMessage(trx, id, w);
      return { customer, values: { ...values, days_overdue: '' } satisfies Own<'invoice_reminder'> };
    },
  },
  appointment_reminder: {
    module: 'events',
    moduleType: 'event',
    sms: true,
    hubPath: () => '', // the hub home lists the appointments
    async prepare(trx, _auth, id, w) {
      const event = await findEventDetail(trx, w.id, id);
      if (!event) throw notFound('Event');
      // D19: the contact of the event's job, or else (none, or none with an email) of its request.
      const [job, request] = await Promise.all([parentLinks(trx, w.id, 'jobs', event.job_id), parentLinks(trx, w.id, 'requests', event.request_id)]);
      const customer = await customerOf(trx, w.id, [job?.contact_id, request?.contact_id], 'Event');
      const property = await propertyRef(trx, w.id, job?.property_id ?? request?.property_id ?? null);
      const a = property?.address;
      const time = event.all_day ? 'all day' : event.start_time ? [event.start_time, event.end_time].filter(Boolean).join(' to ') : '';
      const date = formatDate(event.start_date);
      return {
        customer,
        values: {
          name: event.name ?? '',
          date,
          time,
          when: `on ${date}${event.start_time && !event.all_day ? ` at ${event.start_time}` : ''}`,
          address: a ? [a.street, a.street_2, a.city, [a.state, a.postal_code].filter(Boolean).join(' '), a.country].filter(Boolean).join(', ') : '',
        } satisfies Own<'appointment_reminder'>,
      };
    },
  },
  // A88: "Send hub link" by email: a fresh link to the hub's home, to the contact itself.
  hub_link_to_customer: {
    module: 'contacts',
    moduleType: 'contact',
    sms: false,
    hubPath: () => '',
    async prepare(trx, _auth, id, w) {
      const [contact] = await contactsForMessage(trx, w.id, [id]);
      if (!contact) throw notFound('Contact');
      if (!contact.email) throw new AppError(400, 'Contact has no email address');
      return { customer: { ...contact, email: contact.email }, values: {} satisfies Own<'hub_link_to_customer'> };
    },
  },
};

/**
 * SPEC Notifications rules 4 and 5: why this email stays in the log unsent, or
 * undefined to send it. The month's emails are counted on a counter row (as D13's
 * numbers), so concurrent sends never pass the allowance, and the admins hear of
 * it once a month (the first email past it).
 */
async function emailBlocked(trx: Kysely<DB>, w: Workspace, settings: Settings, type: NotificationType): Promise<string | undefined> {
  if (settings[`notifications.${type}.email`] === false) return `email for ${type} is turned off (notifications.${type}.email)`;
  const month = today(w).slice(0, 7);
  const allowance = Number(settings.email_allowance);
  if (await countWithin(trx, w.id, `emails:${month}`, allowance)) return undefined;
  if ((await nextNumber(trx, w.id, `allowance-notice:${month}`)) === 1) {
    await notifyRoles(trx, w.id, 'email_allowance_used_up', ADMINS, null, { month, email_allowance: allowance, plan: settings.plan });
  }
  return `the monthly email allowance (${allowance}) is used up`;
}

/** SPEC Notifications rule 2: all four, or no SMS at all (silently). */
function smsAllowed(settings: Settings, type: NotificationType, customer: Customer): boolean {
  const consent = fromJson<{ sms_consent?: { opt_in?: unknown } }>(customer.info);
  return (
    settings.sms_provider !== 'none' &&
    settings.sms_plan === true &&
    consent?.sms_consent?.opt_in === true &&
    settings[`notifications.${type}.sms`] === true
  );
}

export function sendNotification(db: Kysely<DB>, auth: AuthContext, body: NotificationBody, hub: HubLinkConfig): Promise<NotificationQueued> {
  return transact(db, auth, async (trx) => {
    const { message_ids: _, ...queued } = await queueNotification(trx, auth, body, hub);
    return { ...queued, type: body.type };
  });
}

/** One message to queue: a type, its record and (E24) values the caller knows beyond the record's, such as how late an invoice is. */
export interface Send {
  type: NotificationType;
  module_id: number;
  values?: Record<string, string>;
}

/**
 * The send inside the caller's transaction: checks, the status move, a fresh
 * hub link for the customer (E7, committed with the message), the queued messages.
 */
export async function queueNotification(
  trx: Kysely<DB>,
  auth: Actor,
  body: Send,
  hub: HubLinkConfig,
): Promise<Omit<NotificationQueued, 'type'> & { type: NotificationType; message_ids: number[] }> {
  const w = await findWorkspace(trx, auth.workspaceId);
  if (!w) throw notFound('Workspace');
  const target = TARGETS[body.type];
  const { customer, values } = await target.prepare(trx, auth, body.module_id, w);
  const settings = settingsOf(w);
  const link = await mintHubLink(trx, w.id, customer.id, hub, target.hubPath(body.module_id));
  const message = render(
    body.type,
    {
      ...values,
      ...body.values,
      ...businessValues(w),
      contact_name: `${customer.first_name} ${customer.last_name}`.trim(),
      contact_first_name: customer.first_name,
      contact_email: customer.email,
      link: link.url,
    },
    settings,
    logoUrl(hub.publicUrl, w),
  );
  const about = { type: body.type, module_type: target.moduleType, module_id: body.module_id, contact_id: customer.id };
  const messageIds: number[] = [];
  messageIds.push(await queueMessage(trx, w.id, {
    ...about,
    channel: 'email',
    recipient: customer.email,
    subject: message.subject,
    body_text: message.text,
    body_html: message.html,
    notSent: await emailBlocked(trx, w, settings, body.type),
  }));
  if (target.sms && smsAllowed(settings, body.type, customer)) {
    messageIds.push(await queueMessage(trx, w.id, {
      ...about,
      channel: 'sms',
      recipient: customer.phone ?? '',
      subject: null,
      body_text: message.sms,
      body_html: null,
      notSent: customer.phone ? undefined : 'the contact has no phone number',
    }));
  }
  return {
    queued: true as const,
    type: body.type,
    module: target.module,
    module_id: body.module_id,
    recipient: { contact_id: customer.id, email: customer.email },
    message_ids: messageIds,
  };
}
