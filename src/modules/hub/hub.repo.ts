import { type ExpressionBuilder, type Insertable, type Kysely, sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB, HubLinksTable } from '../../db/schema.ts';
import { quoteOf } from '../quotes/quotes.repo.ts';
import type { Quote } from '../quotes/quotes.schemas.ts';

// E7, E8: the customer hub's SQL. Every read after the link lookup is scoped by
// the link's workspace and contact, so another contact's or workspace's id is not found.
// The page reads are compiled once (prepared()): building them cost a sixth of a page.

export async function insertHubLink(db: Kysely<DB>, values: Insertable<HubLinksTable>): Promise<void> {
  await db.insertInto('hub_links').values(values).execute();
}

/** E7: revokes every link of the contact; false when the contact is not in the workspace. */
export async function deleteHubLinks(db: Kysely<DB>, workspaceId: number, contactId: number): Promise<boolean> {
  const contact = await contactOf(db, workspaceId, contactId);
  if (!contact) return false;
  await db.deleteFrom('hub_links').where('workspace_id', '=', workspaceId).where('contact_id', '=', contactId).execute();
  return true;
}

export function contactOf(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db.selectFrom('contacts').select(['id']).where('workspace_id', '=', workspaceId).where('id', '=', contactId).executeTakeFirst();
}

const hubLinkQuery = prepared({ tokenHash: 'string', nowIso: 'string' }, (db, p) =>
  db
    .selectFrom('hub_links as l')
    .innerJoin('contacts as c', (j) => j.onRef('c.workspace_id', '=', 'l.workspace_id').onRef('c.id', '=', 'l.contact_id'))
    .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
    .select(['l.workspace_id', 'l.contact_id', 'c.first_name', 'c.last_name', 'w.name as workspace_name', 'w.currency', 'w.country', 'w.timezone'])
    .select(['w.address', 'w.phone', 'w.email', 'w.website', 'w.tax_number', 'w.logo_key'])
    .where('l.token_hash', '=', p.tokenHash)
    .where('l.expires_at', '>', p.nowIso),
);

/** The link of a token hash, unexpired, with its contact and workspace: one statement. */
export async function findHubLink(db: Kysely<DB>, tokenHash: string, nowIso: string) {
  return (await hubLinkQuery(db, { tokenHash, nowIso }))[0];
}

/** The business of a link that has expired (not one revoked or unknown): the "link expired" page names it (A64). */
export function findExpiredHubLinkBusiness(db: Kysely<DB>, tokenHash: string, nowIso: string) {
  return db
    .selectFrom('hub_links as l')
    .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
    .select(['w.name', 'w.address', 'w.phone', 'w.email', 'w.website', 'w.tax_number'])
    .where('l.token_hash', '=', tokenHash)
    .where('l.expires_at', '<=', nowIso)
    .executeTakeFirst();
}

export type HubLinkRow = NonNullable<Awaited<ReturnType<typeof findHubLink>>>;

/** The hub home's quotes: not drafts, newest first. */
export function hubQuotes(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db
    .selectFrom('quotes')
    .select(['id', 'number', 'name', 'status', 'total'])
    .where('workspace_id', '=', workspaceId)
    .where('contact_id', '=', contactId)
    .where('status', '!=', 'draft')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

/** The hub home's invoices: not drafts, newest first. */
export function hubInvoices(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db
    .selectFrom('invoices')
    .select(['id', 'number', 'name', 'status', 'total', 'amount_paid_cents'])
    .where('workspace_id', '=', workspaceId)
    .where('contact_id', '=', contactId)
    .where('status', '!=', 'draft')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

/** The events of the contact's jobs and requests (D19's link from an event to its customer), neither cancelled nor completed (nothing left to confirm). */
function contactEvents(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db
    .selectFrom('events')
    .select(['id', 'name', 'start_date', 'end_date', 'start_time', 'end_time', 'all_day', 'status', 'customer_confirmed_at'])
    .where('workspace_id', '=', workspaceId)
    .where('status', 'not in', ['cancelled', 'completed'])
    .where((eb) =>
      eb.or([
        eb('job_id', 'in', eb.selectFrom('jobs').select('id').where('workspace_id', '=', workspaceId).where('contact_id', '=', contactId)),
        eb('request_id', 'in', eb.selectFrom('requests').select('id').where('workspace_id', '=', workspaceId).where('contact_id', '=', contactId)),
      ]),
    );
}

/** Upcoming (ending today or later), neither cancelled nor completed, soonest first. */
export function hubEvents(db: Kysely<DB>, workspaceId: number, contactId: number, today: string) {
  return contactEvents(db, workspaceId, contactId)
    .where('end_date', '>=', today)
    .orderBy('start_date')
    .orderBy('start_time')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** One event of the contact, neither cancelled nor completed. */
export function hubEvent(db: Kysely<DB>, workspaceId: number, contactId: number, id: number) {
  return contactEvents(db, workspaceId, contactId).where('id', '=', id).executeTakeFirst();
}

/** E8: the customer confirmed the appointment; the first confirmation is kept. */
export async function confirmEvent(db: Kysely<DB>, workspaceId: number, id: number, at: string): Promise<void> {
  await db
    .updateTable('events')
    .set({ customer_confirmed_at: sql`coalesce(customer_confirmed_at, ${at})`, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** Whether the customer's own answer was the quote's last status change. */
const lastByCustomer = (eb: ExpressionBuilder<DB, 'quotes'>) =>
  eb
    .selectFrom('quote_status_changes as sc')
    .select('sc.by_customer')
    .whereRef('sc.workspace_id', '=', 'quotes.workspace_id')
    .whereRef('sc.quote_id', '=', 'quotes.id')
    .orderBy('sc.id', 'desc')
    .limit(1)
    .as('last_by_customer');

const hubQuoteQuery = prepared({ ws: 'number', contact: 'number', id: 'number' }, (db, p) =>
  db.selectFrom('quotes').selectAll('quotes').select(lastByCustomer).where('quotes.workspace_id', '=', p.ws).where('quotes.contact_id', '=', p.contact).where('quotes.id', '=', p.id),
);

/** The quote as the hub may show it (see hubQuote), or undefined. */
function visibleQuote(row: { status: string }, quote: Quote, lastBy: unknown) {
  const changesRequested = row.status === 'draft' && Number(lastBy ?? 0) === 1;
  if (row.status === 'draft' && !changesRequested) return undefined;
  return { quote, changesRequested };
}
const LAST_BY_CUSTOMER = new Set(['last_by_customer']);
// The link's columns the statement adds to the quote's (first_name and the rest).
const LINK_QUOTE_EXTRA = new Set(['last_by_customer', 'first_name', 'last_name', 'workspace_name', 'currency', 'country', 'timezone', 'address', 'phone', 'email', 'website', 'tax_number', 'logo_key']);

/**
 * The contact's quote as the hub may show it: not a draft, unless the customer's
 * own "request changes" made it one (its latest status change), so the page can
 * say what happened. `changes_requested` tells that case.
 */
export async function hubQuote(db: Kysely<DB>, workspaceId: number, contactId: number, id: number) {
  const [row] = await hubQuoteQuery(db, { ws: workspaceId, contact: contactId, id });
  return row && visibleQuote(row, quoteOf(row, LAST_BY_CUSTOMER), row.last_by_customer);
}

// The quote page's usual case in one statement: the link, its contact and workspace,
// and the quote (the floor's one round trip instead of two on PostgreSQL).
const hubLinkQuoteQuery = prepared({ tokenHash: 'string', nowIso: 'string', id: 'number' }, (db, p) =>
  db
    .selectFrom('hub_links as l')
    .innerJoin('contacts as c', (j) => j.onRef('c.workspace_id', '=', 'l.workspace_id').onRef('c.id', '=', 'l.contact_id'))
    .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
    .innerJoin('quotes', (j) => j.onRef('quotes.workspace_id', '=', 'l.workspace_id').onRef('quotes.contact_id', '=', 'l.contact_id'))
    .selectAll('quotes')
    .select(lastByCustomer)
    .select(['c.first_name', 'c.last_name', 'w.name as workspace_name', 'w.currency', 'w.country', 'w.timezone'])
    .select(['w.address', 'w.phone', 'w.email', 'w.website', 'w.tax_number', 'w.logo_key'])
    .where('l.token_hash', '=', p.tokenHash)
    .where('l.expires_at', '>', p.nowIso)
    .where('quotes.id', '=', p.id),
);

/** A live link and its contact's quote `id` as the hub may show it, in one statement; undefined for anything else. */
export async function findHubLinkQuote(db: Kysely<DB>, tokenHash: string, nowIso: string, id: number) {
  const [r] = await hubLinkQuoteQuery(db, { tokenHash, nowIso, id });
  if (!r) return undefined;
  const visible = visibleQuote(r, quoteOf(r, LINK_QUOTE_EXTRA), r.last_by_customer);
  if (!visible) return undefined;
  const link: HubLinkRow = {
    workspace_id: r.workspace_id,
    contact_id: r.contact_id!,
    first_name: r.first_name,
    last_name: r.last_name,
    workspace_name: r.workspace_name,
    currency: r.currency,
    country: r.country,
    timezone: r.timezone,
    address: r.address,
    phone: r.phone,
    email: r.email,
    website: r.website,
    tax_number: r.tax_number,
    logo_key: r.logo_key,
  };
  return { link, ...visible };
}

const lastStatusCommentQuery = prepared({ ws: 'number', quote: 'number' }, (db, p) =>
  db
    .selectFrom('quote_status_changes')
    .select(['status', 'comment', 'by_customer', 'created_at'])
    .where('workspace_id', '=', p.ws)
    .where('quote_id', '=', p.quote)
    .orderBy('id', 'desc')
    .limit(1),
);

/** The latest status change's comment of a quote (the customer's message after an answer). */
export async function lastStatusComment(db: Kysely<DB>, workspaceId: number, quoteId: number) {
  return (await lastStatusCommentQuery(db, { ws: workspaceId, quote: quoteId }))[0];
}

const hubInvoiceQuery = prepared({ ws: 'number', contact: 'number', id: 'number' }, (db, p) =>
  db.selectFrom('invoices').selectAll().where('workspace_id', '=', p.ws).where('contact_id', '=', p.contact).where('id', '=', p.id).where('status', '!=', 'draft'),
);

/** The contact's invoice, not a draft. */
export async function hubInvoice(db: Kysely<DB>, workspaceId: number, contactId: number, id: number) {
  return (await hubInvoiceQuery(db, { ws: workspaceId, contact: contactId, id }))[0];
}

const hubPaymentsQuery = prepared({ ws: 'number', invoice: 'number' }, (db, p) =>
  db
    .selectFrom('invoice_payments')
    .select(['id', 'amount_cents', 'method', 'paid_on'])
    .where('workspace_id', '=', p.ws)
    .where('invoice_id', '=', p.invoice)
    .orderBy('paid_on')
    .orderBy('id'),
);

/** An invoice's payments, as the customer sees them: date, amount, method. */
export function hubPayments(db: Kysely<DB>, workspaceId: number, invoiceId: number) {
  return hubPaymentsQuery(db, { ws: workspaceId, invoice: invoiceId });
}
