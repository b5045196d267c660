import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {copyLineItems, omitPricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { nextNumber } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import type { DocumentRef } from '../../db/related.ts';
import { enters, type QuoteStatus } from '../../domain/statuses.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { emit, emitAll, type OutboxEvent } from '../../outbox/emit.ts';
import { insertJob } from '../jobs/jobs.service.ts';
import { requests } from '../requests/requests.repo.ts';
import { updateRequest } from '../requests/requests.service.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { findQuoteDetail, insertQuote, insertStatusChange, listQuotes, loadQuoteInputs, quoteCodec, type QuoteRefs, quotes, updateQuoteRow } from './quotes.repo.ts';
import type { Quote, QuoteCreate, QuoteDetail, QuoteListItem, QuoteQuery, QuoteUpdate } from './quotes.schemas.ts';
import { type FieldDef, validateCustomFields } from '../custom-fields/custom-fields.service.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';

export async function getQuoteDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<QuoteDetail> {
  const found = await findQuoteDetail(db, workspaceId, id);
  if (!found) throw notFound('Quote');
  return found.detail;
}

const refsOf = (body: QuoteCreate | QuoteUpdate) => ({
  ids: {
    contact_id: ['contacts', body.contact_id] as [string, number | null | undefined],
    property_id: ['properties', body.property_id] as [string, number | null | undefined],
    request_id: ['requests', body.request_id] as [string, number | null | undefined],
    template_id: ['quote_templates', body.template_id] as [string, number | null | undefined],
  },
  users: { salesperson_id: body.salesperson_id },
});

const REF_FIELDS = ['contact_id', 'property_id', 'request_id', 'template_id', 'salesperson_id'] as const;

/** A DocumentRef of a quote or job. */
const docRef = (r: { id: number; number: number; name: string | null; status: string }): DocumentRef => ({ id: r.id, number: r.number, name: r.name, status: r.status });

/**
 * D23 for the job of an accepted quote: it carries the quote's custom field
 * values for the keys the workspace defines for jobs (a shared key means the
 * same field), and nothing else; the job's required fields then apply as on
 * any create, so a quote that cannot provide them cannot be accepted (400
 * naming `custom_fields.<key>`).
 */
function carriedFields(quote: Quote, jobDefs: FieldDef[]): Record<string, unknown> | null {
  const from = quote.custom_fields;
  if (!from || typeof from !== 'object' || Array.isArray(from)) return null;
  const keys = new Set(jobDefs.map((d) => d.key));
  const carried = Object.fromEntries(Object.entries(from).filter(([k]) => keys.has(k)));
  return Object.keys(carried).length ? carried : null;
}

/**
 * D14: the quote entered `accepted`, so it yields its job: a draft copying
 * name, contact, property, request, salesperson, line items, pricing, total
 * and the custom fields jobs define (D23). The caller holds the quote's row
 * lock and has seen that it has no job yet (read after taking the lock).
 * `new_job` is added to `events`, recorded with the quote's own (`entered`).
 */
async function yieldJob(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  quote: Quote,
  refs: QuoteRefs,
  jobDefs: FieldDef[],
  events: OutboxEvent[],
): Promise<DocumentRef> {
  const job = await insertJob(
    trx,
    workspaceId,
    userId,
    {
      name: quote.name,
      contact_id: quote.contact_id,
      property_id: quote.property_id,
      request_id: quote.request_id,
      quote_id: quote.id,
      salesperson_id: quote.salesperson_id,
      type: 'one-off',
      expected_end_date: null,
      expenses: [],
      status: 'draft',
      custom_fields: carriedFields(quote, jobDefs),
      ...pricingOf(quote),
      line_items: copyLineItems(quote.line_items),
    },
    { refs: { ...refs, quote: docRef(quote) }, fieldDefs: jobDefs, events },
  );
  return docRef(job);
}

/**
 * The one function that creates a quote, inside the caller's transaction (the
 * REST create and the template path): D23 custom fields, D11 references, its
 * D13 number and the `new_quote` event (D16). Created as `accepted`, it enters
 * that status: D14 and `quote_accepted` apply. The answer is built from the
 * inserted row and the references loaded with the custom field definitions
 * (one statement), not read back.
 */
export async function createQuote(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: QuoteCreate): Promise<QuoteDetail> {
  const status: QuoteStatus = body.status ?? 'draft';
  const inputs = await loadQuoteInputs(trx, workspaceId, body, { quoteFields: true, jobFields: status === 'accepted' });
  validateCustomFields(inputs.quoteDefs, body.custom_fields, { create: true }); // D23, on every create path
  if (inputs.missing) await checkReferences(trx, workspaceId, refsOf(body)); // D11: names each missing reference
  const pricing = await resolvePricing(trx, workspaceId, null, body);
  const number = await nextNumber(trx, workspaceId, 'quotes');
  const at = now();
  const quote = await insertQuote(trx, {
    ...quoteCodec.encode({ ...omitPricing(body), ...pricing, status }),
    number,
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  const events: OutboxEvent[] = [];
  const job = status === 'accepted' ? await yieldJob(trx, workspaceId, userId, quote, inputs.refs, inputs.jobDefs, events) : null;
  const detail: QuoteDetail = { ...quote, ...inputs.refs, job, status_changes: [] };
  events.push({ event: 'new_quote', resource: 'quotes', data: detail });
  await entered(trx, workspaceId, null, detail, events);
  return detail;
}

/**
 * What entering a status sets off, by any path (F16): `quote_accepted` (D16), and
 * `quotes_awaiting_response` to the admins and managers (SPEC Internal notifications).
 * `events` are the write's other events (`new_quote`, its job's `new_job`), recorded
 * with `quote_accepted` in one statement.
 */
async function entered(trx: Kysely<DB>, workspaceId: number, before: string | null, quote: QuoteDetail, events: OutboxEvent[], updated?: OutboxEvent): Promise<void> {
  if (enters(before, quote.status, 'accepted')) events.push({ event: 'quote_accepted', resource: 'quotes', data: quote });
  if (updated) events.push(updated);
  await emitAll(trx, workspaceId, events);
  if (enters(before, quote.status, 'awaiting_response')) {
    const data = { quote_id: quote.id, number: quote.number, name: quote.name, total: quote.total, contact_id: quote.contact_id };
    await notifyRoles(trx, workspaceId, 'quotes_awaiting_response', ADMINS_AND_MANAGERS, { type: 'quote', id: quote.id }, data);
  }
}

/**
 * A partial update: PUT, the status endpoint (`change` carries its comment),
 * or another module moving the status (notifications). Every status change is
 * kept in quote_status_changes with the acting user. The answer is the locked
 * detail read plus what this write changed, not a second read.
 */
export async function updateQuote(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  id: number,
  body: QuoteUpdate,
  change?: { comment: string | null; byCustomer?: boolean },
): Promise<QuoteDetail> {
  const found = await findQuoteDetail(trx, workspaceId, id, { lock: true, jobFields: body.status === 'accepted' });
  if (!found) throw notFound('Quote');
  const before = found.detail;
  const inputs =
    body.custom_fields !== undefined || REF_FIELDS.some((f) => body[f] !== undefined)
      ? await loadQuoteInputs(trx, workspaceId, body, { quoteFields: body.custom_fields !== undefined, jobFields: false })
      : null;
  if (inputs) {
    validateCustomFields(inputs.quoteDefs, body.custom_fields, { create: false }); // D23
    if (inputs.missing) await checkReferences(trx, workspaceId, refsOf(body)); // D11
  }
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  const at = now();
  const updated = await updateQuoteRow(trx, workspaceId, id, { ...quoteCodec.encode({ ...omitPricing(body), ...pricing }), updated_at: at });
  const quote = updated.quote;
  const status_changes = [...before.status_changes];
  if (body.status !== undefined && (change || quote.status !== before.status)) {
    const entry = { status: quote.status, comment: change?.comment ?? null, user_id: userId, created_at: at };
    await insertStatusChange(trx, workspaceId, { quote_id: id, ...entry, ...(change?.byCustomer && { by_customer: 1 }) });
    status_changes.push(entry);
  }
  const pick = <K extends keyof QuoteRefs>(key: K, field: (typeof REF_FIELDS)[number]): QuoteRefs[K] =>
    body[field] === undefined || !inputs ? before[key] : inputs.refs[key];
  const refs: QuoteRefs = {
    contact: pick('contact', 'contact_id'),
    property: pick('property', 'property_id'),
    request: pick('request', 'request_id'),
    salesperson: pick('salesperson', 'salesperson_id'),
  };
  // The job as read by the update (after the lock): one a concurrent write made is seen, and kept.
  let job = updated.job;
  const events: OutboxEvent[] = [];
  if (enters(before.status, quote.status, 'accepted') && !job) job = await yieldJob(trx, workspaceId, userId, quote, refs, found.jobDefs, events);
  const detail: QuoteDetail = { ...quote, ...refs, job, status_changes };
  await entered(trx, workspaceId, before.status, detail, events, { event: 'quote_updated', resource: 'quotes', data: detail }); // E14: every write, status included
  return detail;
}

/**
 * E6: a draft quote from a request (its contact, property, name and
 * `request_id`), created by createQuote so D23, D13 and `new_quote` apply; a
 * `new` request moves to `responded` (its `request_updated`, D16). The request
 * row is locked so two conversions see one move.
 */
export async function createQuoteFromRequest(trx: Kysely<DB>, workspaceId: number, userId: string | null, requestId: number): Promise<QuoteDetail> {
  const request = await requests.find(trx, workspaceId, requestId, { lock: true });
  if (!request) throw notFound('Request');
  const quote = await createQuote(trx, workspaceId, userId, {
    contact_id: request.contact_id,
    property_id: request.property_id,
    name: request.name,
    request_id: request.id,
    status: 'draft',
  });
  if (request.status === 'new') await updateRequest(trx, workspaceId, request.id, { status: 'responded' });
  return quote;
}

/** The status endpoint's move, for reuse (e.g. `quote_to_customer` -> awaiting_response). */
export const setQuoteStatus = (
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  id: number,
  status: QuoteStatus,
  comment: string | null = null,
  byCustomer = false, // E8: the customer's answer in the hub
) => updateQuote(trx, workspaceId, userId, id, { status }, { comment, byCustomer });

export function quotesService({ db }: AppContext): CrudService<QuoteQuery, QuoteCreate, QuoteUpdate, QuoteListItem, QuoteDetail> {
  return {
    list: (auth, query) => listQuotes(db, auth.workspaceId, query),
    get: (auth, id) => getQuoteDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, (trx) => createQuote(trx, auth.workspaceId, auth.userId, body)),
    update: (auth, id, body) =>
      transact(db, auth, (trx) => updateQuote(trx, auth.workspaceId, auth.userId, id, body)),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; its job and invoices stay, their quote_id becomes null.
      await deleteWithAttachments(db, auth, 'quote', id, 'Quote', async (trx) => {
        const gone = await quotes.remove(trx, auth.workspaceId, id);
        if (gone) await emit(trx, auth.workspaceId, 'quote_deleted', 'quotes', { id }); // E14
        return gone;
      });
    },
  };
}
