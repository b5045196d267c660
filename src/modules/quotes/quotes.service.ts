import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {copyLineItems, omitPricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { nextNumber } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import { contactRef, documentRef, propertyRef, userRef } from '../../db/related.ts';
import { enters, type QuoteStatus } from '../../domain/statuses.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import { jobOfQuote } from '../jobs/jobs.repo.ts';
import { insertJob } from '../jobs/jobs.service.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { insertStatusChange, listQuotes, listStatusChanges, quoteCodec, quoteOf, quotes } from './quotes.repo.ts';
import type { Quote, QuoteCreate, QuoteDetail, QuoteListItem, QuoteQuery, QuoteUpdate } from './quotes.schemas.ts';
import { checkCustomFields } from '../custom-fields/custom-fields.service.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';

async function findQuote(db: Kysely<DB>, workspaceId: number, id: number, lock = false): Promise<Quote> {
  const row = await quotes.find(db, workspaceId, id, { lock });
  if (!row) throw notFound('Quote');
  return quoteOf(row);
}

export async function getQuoteDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<QuoteDetail> {
  const quote = await findQuote(db, workspaceId, id);
  const job = await jobOfQuote(db, workspaceId, id);
  return {
    ...quote,
    contact: await contactRef(db, workspaceId, quote.contact_id),
    property: await propertyRef(db, workspaceId, quote.property_id),
    request: await documentRef(db, 'requests', workspaceId, quote.request_id),
    salesperson: await userRef(db, workspaceId, quote.salesperson_id),
    job: await documentRef(db, 'jobs', workspaceId, job?.id ?? null),
    status_changes: await listStatusChanges(db, workspaceId, id),
  };
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

/**
 * D14: the quote entered `accepted`, so it yields its job: a draft copying
 * name, contact, property, request, salesperson, line items, pricing and
 * total; nothing when a job with its quote_id exists. The caller holds the
 * quote's row lock, so a concurrent accept waits and then finds this job.
 */
async function yieldJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, quote: Quote): Promise<void> {
  if (await jobOfQuote(trx, workspaceId, quote.id)) return;
  await insertJob(trx, workspaceId, userId, {
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
    custom_fields: null,
    ...pricingOf(quote),
    line_items: copyLineItems(quote.line_items),
  });
}

/**
 * Creates a quote inside the caller's transaction with its D13 number and the
 * `new_quote` event (D16); the REST create and the template path both use it.
 * Created as `accepted`, it enters that status: D14 and `quote_accepted` apply.
 */
export async function createQuote(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: QuoteCreate): Promise<QuoteDetail> {
  await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, null, body);
  const number = await nextNumber(trx, workspaceId, 'quotes');
  const at = now();
  const status: QuoteStatus = body.status ?? 'draft';
  const id = await quotes.insert(trx, {
    ...quoteCodec.encode({ ...omitPricing(body), ...pricing, status }),
    number,
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  if (status === 'accepted') await yieldJob(trx, workspaceId, userId, await findQuote(trx, workspaceId, id));
  const detail = await getQuoteDetail(trx, workspaceId, id);
  await emit(trx, workspaceId, 'new_quote', 'quotes', detail);
  await entered(trx, workspaceId, null, detail);
  return detail;
}

/**
 * What entering a status sets off, by any path (F16): `quote_accepted` (D16), and
 * `quotes_awaiting_response` to the admins and managers (SPEC Internal notifications).
 */
async function entered(trx: Kysely<DB>, workspaceId: number, before: string | null, quote: QuoteDetail): Promise<void> {
  if (enters(before, quote.status, 'accepted')) await emit(trx, workspaceId, 'quote_accepted', 'quotes', quote);
  if (enters(before, quote.status, 'awaiting_response')) {
    const data = { quote_id: quote.id, number: quote.number, name: quote.name, total: quote.total, contact_id: quote.contact_id };
    await notifyRoles(trx, workspaceId, 'quotes_awaiting_response', ADMINS_AND_MANAGERS, { type: 'quote', id: quote.id }, data);
  }
}

/**
 * A partial update: PUT, the status endpoint (`change` carries its comment),
 * or another module moving the status (notifications). Every status change is
 * kept in quote_status_changes with the acting user.
 */
export async function updateQuote(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  id: number,
  body: QuoteUpdate,
  change?: { comment: string | null },
): Promise<QuoteDetail> {
  const before = await findQuote(trx, workspaceId, id, true);
  await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  const at = now();
  await quotes.update(trx, workspaceId, id, { ...quoteCodec.encode({ ...omitPricing(body), ...pricing }), updated_at: at });
  const status = body.status ?? before.status;
  if (body.status !== undefined && (change || status !== before.status)) {
    await insertStatusChange(trx, workspaceId, { quote_id: id, status, comment: change?.comment ?? null, user_id: userId, created_at: at });
  }
  if (enters(before.status, status, 'accepted')) await yieldJob(trx, workspaceId, userId, await findQuote(trx, workspaceId, id));
  const detail = await getQuoteDetail(trx, workspaceId, id);
  await entered(trx, workspaceId, before.status, detail);
  return detail;
}

/** The status endpoint's move, for reuse (e.g. `quote_to_customer` -> awaiting_response). */
export const setQuoteStatus = (trx: Kysely<DB>, workspaceId: number, userId: string | null, id: number, status: QuoteStatus, comment: string | null = null) =>
  updateQuote(trx, workspaceId, userId, id, { status }, { comment });

export function quotesService({ db }: AppContext): CrudService<QuoteQuery, QuoteCreate, QuoteUpdate, QuoteListItem, QuoteDetail> {
  return {
    list: (auth, query) => listQuotes(db, auth.workspaceId, query),
    get: (auth, id) => getQuoteDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'quote', body.custom_fields, { create: true }); // D23
        return createQuote(trx, auth.workspaceId, auth.userId, body);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'quote', body.custom_fields, { create: false }); // D23
        return updateQuote(trx, auth.workspaceId, auth.userId, id, body);
      }),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; its job and invoices stay, their quote_id becomes null.
      await deleteWithAttachments(db, auth, 'quote', id, 'Quote', (trx) => quotes.remove(trx, auth.workspaceId, id));
    },
  };
}
