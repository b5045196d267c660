import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { logoPath } from '../workspace/logo.ts';
import { businessLines, formatDate, formatMoney, workspaceCurrency } from '../../domain/format.ts';
import { documentView, type PricedDocument } from '../../domain/document-view.ts';
import { fromCents, totalCents } from '../../domain/money.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { transact } from '../../http/transact.ts';
import { storableText } from '../../http/validation.ts';
import { AppError, notFound, ValidationError } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { invoiceOf } from '../invoices/invoices.repo.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';
import { quotes, setQuoteApproval } from '../quotes/quotes.repo.ts';
import type { Quote } from '../quotes/quotes.schemas.ts';
import { setQuoteStatus } from '../quotes/quotes.service.ts';
import { createRequest } from '../requests/requests.service.ts';
import {
  confirmEvent,
  deleteHubLinks,
  contactOf,
  findExpiredHubLinkBusiness,
  findHubLink,
  findHubLinkQuote,
  type HubLinkRow,
  hubEvent,
  hubEvents,
  hubInvoice,
  hubInvoices,
  hubPayments,
  hubQuote,
  hubQuotes,
  insertHubLink,
  lastStatusComment,
} from './hub.repo.ts';

// EXTENSIONS E7, E8, E8a: the customer hub. A link is a random token (256 bits,
// base64url) of which only the SHA-256 is stored; it opens one contact's
// documents in one workspace. Everything the pages show is read through the
// link's workspace and contact; anything else is the same plain 404.

/** What minting a link needs from the configuration (PUBLIC_URL, HUB_LINK_TTL). */
export type HubLinkConfig = Pick<Config, 'publicUrl' | 'hubLinkTtl'>;

export interface HubLink {
  url: string;
  expires_at: string;
}

/** The token's shape: 32 random bytes in base64url. Anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * E7: a new link for the contact, inside the caller's transaction (a customer
 * message mints its link in the transaction that queues it). `path` goes after
 * the token: `/quotes/12`, `/invoices/3`, or nothing for the hub home.
 */
export async function mintHubLink(trx: Kysely<DB>, workspaceId: number, contactId: number, config: HubLinkConfig, path = ''): Promise<HubLink> {
  const token = randomBytes(32).toString('base64url');
  const at = Date.now();
  const expires_at = new Date(at + config.hubLinkTtl).toISOString();
  await insertHubLink(trx, { workspace_id: workspaceId, contact_id: contactId, token_hash: hashToken(token), expires_at, created_at: new Date(at).toISOString() });
  return { url: `${config.publicUrl}/hub/${token}${path}`, expires_at };
}

/** `POST /contacts/:id/hub-link`: 404 for a contact not in the workspace. */
export async function createHubLink(trx: Kysely<DB>, workspaceId: number, contactId: number, config: HubLinkConfig): Promise<HubLink> {
  if (!(await contactOf(trx, workspaceId, contactId))) throw notFound('Contact');
  return mintHubLink(trx, workspaceId, contactId, config);
}

/** `DELETE /contacts/:id/hub-links`: every link of the contact stops working at once. */
export async function revokeHubLinks(trx: Kysely<DB>, workspaceId: number, contactId: number): Promise<void> {
  if (!(await deleteHubLinks(trx, workspaceId, contactId))) throw notFound('Contact');
}

// ---- reading a link ---------------------------------------------------------

/** The one answer to anything the hub will not show (E8a): no workspace, no document named. */
export const hubNotFound = () => new AppError(404, 'Not found');

/** A link that has expired: a 404 like any other, whose page names the business to ask for a new one (A64). */
export class HubLinkExpired extends AppError {
  constructor(
    readonly business: string,
    readonly businessLines: string[],
  ) {
    super(404, 'Not found');
  }
}

export interface HubContext {
  workspaceId: number;
  contactId: number;
  contactName: string;
  business: string;
  /** A64: how customers reach the business, under its name on every page. */
  businessLines: string[];
  /** A125: the logo's path on this server (the page's img-src 'self'), or null. */
  logo: string | null;
  /** Never null: a workspace that names none shows its country's (F101). */
  currency: string;
  timezone: string | null;
}

const contextOf = (row: HubLinkRow): HubContext => ({
  workspaceId: row.workspace_id,
  contactId: row.contact_id,
  contactName: `${row.first_name} ${row.last_name}`.trim(),
  business: row.workspace_name,
  businessLines: businessLines(row),
  logo: logoPath(row),
  currency: workspaceCurrency(row),
  timezone: row.timezone,
});

/** A token -> its contact and workspace, or the hub's 404 (unknown, expired, revoked: alike). One query. */
export async function resolveHub(db: Kysely<DB>, token: string): Promise<HubContext> {
  if (!TOKEN.test(token)) throw hubNotFound();
  const at = now();
  const row = await findHubLink(db, hashToken(token), at);
  if (!row) {
    const expired = await findExpiredHubLinkBusiness(db, hashToken(token), at);
    throw expired ? new HubLinkExpired(expired.name, businessLines(expired)) : hubNotFound();
  }
  return contextOf(row);
}

/** A path id as the hub takes it: a plain positive integer, else not found. */
export function hubId(text: string): number {
  if (!/^[1-9]\d{0,14}$/.test(text)) throw hubNotFound();
  return Number(text);
}

export type HubDocument =
  | { kind: 'quote'; hub: HubContext; quote: Quote; changesRequested: boolean }
  | { kind: 'invoice'; hub: HubContext; invoice: ReturnType<typeof invoiceOf> };

/**
 * The hub's one lookup of a document: token -> contact -> the contact's
 * document of that kind that the customer may see, or the hub's 404. The pages
 * (and the PDF routes) start here.
 */
export async function hubDocument(db: Kysely<DB>, token: string, kind: 'quote', id: string): Promise<Extract<HubDocument, { kind: 'quote' }>>;
export async function hubDocument(db: Kysely<DB>, token: string, kind: 'invoice', id: string): Promise<Extract<HubDocument, { kind: 'invoice' }>>;
export async function hubDocument(db: Kysely<DB>, token: string, kind: 'quote' | 'invoice', id: string): Promise<HubDocument> {
  if (kind === 'quote' && TOKEN.test(token) && /^[1-9]\d{0,14}$/.test(id)) {
    // The usual case in one statement; anything else (an expired link, another
    // contact's quote, a draft) takes the steps below, which say which it is.
    const found = await findHubLinkQuote(db, hashToken(token), now(), Number(id));
    if (found) return { kind, hub: contextOf(found.link), quote: found.quote, changesRequested: found.changesRequested };
  }
  const hub = await resolveHub(db, token);
  const docId = hubId(id);
  if (kind === 'quote') {
    const found = await hubQuote(db, hub.workspaceId, hub.contactId, docId);
    if (!found) throw hubNotFound();
    return { kind, hub, quote: found.quote, changesRequested: found.changesRequested };
  }
  const row = await hubInvoice(db, hub.workspaceId, hub.contactId, docId);
  if (!row) throw hubNotFound();
  return { kind, hub, invoice: invoiceOf(row) };
}

// ---- what the pages show ----------------------------------------------------

const STATUS_LABELS: Record<string, string> = {
  awaiting_response: 'Awaiting your answer',
  accepted: 'Approved',
  declined: 'Declined',
  expired: 'Expired',
  archived: 'Archived',
  awaiting_deposit: 'Awaiting deposit',
  draft: 'Changes requested',
  sent: 'Due',
  paid: 'Paid',
  partially_paid: 'Partly paid',
  overdue: 'Overdue',
  cancelled: 'Cancelled',
  scheduled: 'Scheduled',
};
const statusLabel = (s: string) => STATUS_LABELS[s] ?? s;

const money = (hub: HubContext, amount: number) => formatMoney(amount, hub.currency);
const cents = (hub: HubContext, c: number) => money(hub, fromCents(c));

/** An instant on the workspace's clock: "March 5, 2026 at 2:30 PM". */
function formatInstant(iso: string, timeZone: string | null): string {
  const opts: Intl.DateTimeFormatOptions = { dateStyle: 'long', timeStyle: 'short' };
  try {
    return new Intl.DateTimeFormat('en', { ...opts, timeZone: timeZone ?? 'UTC' }).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en', { ...opts, timeZone: 'UTC' }).format(new Date(iso));
  }
}

export async function homePage(db: Kysely<DB>, token: string) {
  const hub = await resolveHub(db, token);
  const today = zonedDate(Date.now(), hub.timezone);
  const [q, i, e] = await Promise.all([
    hubQuotes(db, hub.workspaceId, hub.contactId),
    hubInvoices(db, hub.workspaceId, hub.contactId),
    hubEvents(db, hub.workspaceId, hub.contactId, today),
  ]);
  return {
    business: hub.business,
    businessLines: hub.businessLines,
    logo: hub.logo,
    contactName: hub.contactName,
    quotes: q.map((r) => ({ id: r.id, number: r.number, name: r.name, status: statusLabel(r.status), total: money(hub, r.total) })),
    invoices: i.map((r) => ({
      id: r.id,
      number: r.number,
      name: r.name,
      status: statusLabel(r.status),
      total: money(hub, r.total),
      balance: cents(hub, totalCents(r.total) - r.amount_paid_cents),
    })),
    events: e.map((r) => ({
      id: r.id,
      name: r.name,
      date: r.end_date !== r.start_date ? `${formatDate(r.start_date)} to ${formatDate(r.end_date)}` : formatDate(r.start_date),
      time: r.all_day ? 'All day' : r.start_time ? [r.start_time, r.end_time].filter(Boolean).join(' to ') : '',
      confirmed: r.customer_confirmed_at ? formatInstant(r.customer_confirmed_at, hub.timezone) : null,
    })),
  };
}

/** Line items and totals as emails and PDFs show them (documentView); a zero is shown, not left blank. */
function viewOf(hub: HubContext, doc: PricedDocument) {
  const view = documentView(doc, hub.currency);
  const zero = money(hub, 0);
  return {
    items: view.lines,
    totals: { subtotal: view.subtotal, discount: view.discount || zero, tax: view.tax || zero, taxRate: view.taxRate || null, total: view.total },
    deposit: view.deposit || zero,
  };
}

export type QuoteOutcome = { kind: 'approved'; signature: string; at: string; message: string | null } | { kind: 'changes' | 'declined'; message: string | null } | null;

export async function quotePage(db: Kysely<DB>, token: string, id: string) {
  const { hub, quote, changesRequested } = await hubDocument(db, token, 'quote', id);
  // The customer's message is read only when the page shows it (changes asked for, a
  // decline): a quote awaiting its answer, the common page, costs one round trip less.
  const last = changesRequested || quote.status === 'declined' ? await lastStatusComment(db, hub.workspaceId, quote.id) : undefined;
  const byCustomer = last && Number(last.by_customer) === 1;
  let outcome: QuoteOutcome = null;
  if (changesRequested) outcome = { kind: 'changes', message: last?.comment ?? null };
  else if (quote.status === 'declined' && byCustomer) outcome = { kind: 'declined', message: last?.comment ?? null };
  else if (quote.approval && quote.status !== 'awaiting_response') {
    outcome = { kind: 'approved', signature: quote.approval.signature_name, at: formatInstant(quote.approval.approved_at, hub.timezone), message: quote.approval.message };
  }
  return {
    token,
    business: hub.business,
    businessLines: hub.businessLines,
    logo: hub.logo,
    contactName: hub.contactName,
    id: quote.id,
    number: quote.number,
    name: quote.name,
    status: statusLabel(quote.status),
    // A quote the customer sent back is a draft again: its contents are the office's work in progress.
    showContents: !changesRequested,
    ...viewOf(hub, quote),
    // What the email and the PDF show beside the items (issue 25: the hub left them out).
    message: quote.message,
    paymentInstructions: quote.payment_instructions,
    date: formatDate(quote.date),
    expireOn: formatDate(quote.expire_on),
    open: quote.status === 'awaiting_response',
    outcome,
  };
}

export async function invoicePage(db: Kysely<DB>, token: string, id: string) {
  const { hub, invoice } = await hubDocument(db, token, 'invoice', id);
  const payments = await hubPayments(db, hub.workspaceId, invoice.id);
  return {
    token,
    business: hub.business,
    businessLines: hub.businessLines,
    logo: hub.logo,
    contactName: hub.contactName,
    number: invoice.number,
    name: invoice.name,
    status: statusLabel(invoice.status),
    ...viewOf(hub, invoice),
    message: invoice.message,
    paymentInstructions: invoice.payment_instructions,
    amountPaid: money(hub, invoice.amount_paid),
    balance: money(hub, invoice.balance),
    date: formatDate(invoice.date),
    dueDate: formatDate(invoice.due_date),
    payments: payments.map((p) => ({ date: formatDate(p.paid_on), amount: cents(hub, p.amount_cents), method: p.method.replace('_', ' ') })),
  };
}

// ---- what the customer does -------------------------------------------------

/** A form or JSON body's text field: a string, trimmed; absent or empty is undefined. */
function text(body: unknown, name: string, max: number): string | undefined {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ValidationError([{ path: [name], message: 'must be text' }]);
  const s = v.trim();
  if (s.length > max) throw new ValidationError([{ path: [name], message: `must be at most ${max} characters` }]);
  // E18: PostgreSQL refuses U+0000 and unpaired surrogates (the approval is jsonb).
  if (!storableText(s)) throw new ValidationError([{ path: [name], message: 'must not contain U+0000 or unpaired surrogates' }]);
  return s || undefined;
}

export type QuoteAnswer = 'approve' | 'request-changes' | 'decline';

const RESPONSE: Record<QuoteAnswer, string> = { approve: 'approved', 'request-changes': 'changes_requested', decline: 'declined' };

/** The form's fields, checked before anything is read or written: a 400 the page can show. */
export function readAnswer(answer: QuoteAnswer, body: unknown): { signature?: string; message: string | null } {
  const message = text(body, 'message', 5000) ?? null;
  if (answer === 'approve') {
    const signature = text(body, 'signature_name', 255);
    if (!signature) throw new ValidationError([{ path: ['signature_name'], message: 'Please type your full name to approve.' }]);
    return { signature, message };
  }
  if (answer === 'request-changes' && !message) throw new ValidationError([{ path: ['message'], message: 'Please say what you would like changed.' }]);
  return { message };
}

/**
 * E8: the customer's answer to a quote, in one transaction: the quote's row is
 * locked first, so an office accepting at the same moment either went first (and
 * this answers 409) or waits and sees `accepted` with its one job (D14). The
 * status moves through the quote service (its events and notifications), the
 * change is marked as the customer's, and the team hears of it.
 */
export async function answerQuote(db: Kysely<DB>, token: string, id: string, answer: QuoteAnswer, input: { signature?: string; message: string | null }): Promise<void> {
  const hub = await resolveHub(db, token);
  const quoteId = hubId(id);
  await transact(db, {}, async (trx) => {
    const row = await quotes.find(trx, hub.workspaceId, quoteId, { lock: true });
    if (!row || row.contact_id !== hub.contactId) throw hubNotFound();
    if (row.status !== 'awaiting_response') {
      // A draft is not shown, unless the customer's own change request made it one.
      if (row.status === 'draft' && !(await hubQuote(trx, hub.workspaceId, hub.contactId, quoteId))) throw hubNotFound();
      throw new AppError(409, 'This quote is no longer waiting for an answer.');
    }
    if (answer === 'approve') {
      await setQuoteApproval(trx, hub.workspaceId, quoteId, toJson({ signature_name: input.signature, message: input.message, approved_at: now() }) ?? '');
      await setQuoteStatus(trx, hub.workspaceId, null, quoteId, 'accepted', input.message, true);
    } else {
      await setQuoteStatus(trx, hub.workspaceId, null, quoteId, answer === 'decline' ? 'declined' : 'draft', input.message, true);
    }
    await notifyRoles(trx, hub.workspaceId, 'quote_customer_response', ADMINS_AND_MANAGERS, { type: 'quote', id: quoteId }, {
      quote_id: quoteId,
      number: row.number,
      name: row.name,
      contact_id: hub.contactId,
      response: RESPONSE[answer],
      message: input.message,
      ...(input.signature && { signature_name: input.signature }),
    });
  });
}

/** E8: the customer confirms an appointment of theirs (not cancelled); the first confirmation is kept. */
export async function confirmHubEvent(db: Kysely<DB>, token: string, id: string): Promise<void> {
  const hub = await resolveHub(db, token);
  const eventId = hubId(id);
  await transact(db, {}, async (trx) => {
    if (!(await hubEvent(trx, hub.workspaceId, hub.contactId, eventId))) throw hubNotFound();
    await confirmEvent(trx, hub.workspaceId, eventId, now());
  });
}

export interface HubRequestInput {
  details?: string;
  service_type?: string;
  preferred_date?: string;
}

/** The request form's fields, checked: a 400 the page can show. */
export function readRequest(body: unknown): { details: string; service_type?: string; preferred_date?: string } {
  const details = text(body, 'details', 5000);
  const service_type = text(body, 'service_type', 255);
  const preferred_date = text(body, 'preferred_date', 10);
  if (!details) throw new ValidationError([{ path: ['details'], message: 'Please describe what you need.' }]);
  if (preferred_date && (!/^\d{4}-\d\d-\d\d$/.test(preferred_date) || Number.isNaN(Date.parse(`${preferred_date}T00:00:00Z`)))) {
    throw new ValidationError([{ path: ['preferred_date'], message: 'Please give the date as YYYY-MM-DD.' }]);
  }
  return { details, service_type, preferred_date };
}

/**
 * E8: a request for the link's contact, made by the one function that creates
 * requests (the website form's path too): D13 number, D23 required fields,
 * `new_request`. The service type and preferred date go in its `data`.
 */
export async function hubRequest(db: Kysely<DB>, token: string, input: ReturnType<typeof readRequest>): Promise<number> {
  const hub = await resolveHub(db, token);
  const data = { ...(input.service_type && { service_type: input.service_type }), ...(input.preferred_date && { preferred_date: input.preferred_date }) };
  const request = await transact(db, {}, (trx) =>
    createRequest(trx, hub.workspaceId, null, { contact_id: hub.contactId, details: input.details, ...(Object.keys(data).length && { data }) }),
  );
  return request.number;
}

export async function requestPage(db: Kysely<DB>, token: string) {
  const hub = await resolveHub(db, token);
  return { token, business: hub.business, businessLines: hub.businessLines,
    logo: hub.logo, contactName: hub.contactName };
}
