import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { copyLineItems, omitPricing, pricingOf } from '../../domain/line-items.ts';
import { findJobDetail } from '../jobs/jobs.repo.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { checkReferences } from '../../db/references.ts';
import { nextNumber } from '../../db/numbering.ts';
import { dayMs } from '../../domain/zoned-time.ts';
import { enters, type InvoiceStatus } from '../../domain/statuses.ts';
import { statusAfterPayments } from '../../domain/money.ts';
import { unbillInvoice } from '../billing/billing.repo.ts';
import { releaseDeposits } from './payments.repo.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { conflict, invalidField, notFound } from '../../kernel/errors.ts';
import { emit, emitAll, type OutboxEvent } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { findInvoiceDetail, insertInvoice, invoiceCodec, invoices, listInvoices, updateInvoiceRow, workspaceToday } from './invoices.repo.ts';
import type { Invoice, InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceUpdate, PAYMENT_TERMS } from './invoices.schemas.ts';
import { checkCustomFields } from '../custom-fields/custom-fields.service.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';

async function findInvoice(db: Kysely<DB>, workspaceId: number, id: number, lock = false): Promise<InvoiceDetail> {
  const found = await findInvoiceDetail(db, workspaceId, id, { lock });
  if (!found) throw notFound('Invoice');
  return found;
}

export const getInvoiceDetail = (db: Kysely<DB>, workspaceId: number, id: number): Promise<InvoiceDetail> => findInvoice(db, workspaceId, id);

const TERM_DAYS: Record<(typeof PAYMENT_TERMS)[number], number> = { due_on_receipt: 0, net_7: 7, net_14: 14, net_30: 30, net_60: 60, net_90: 90 };

/**
 * E2: a body that sets `date` or `payment_terms` but not `due_date` gets the due
 * date `date` + terms, a null date counting as today in the workspace's zone.
 */
async function dueDateOf(
  trx: Kysely<DB>,
  workspaceId: number,
  body: InvoiceCreate | InvoiceUpdate,
  before: Pick<Invoice, 'date' | 'payment_terms'> | null,
): Promise<{ due_date?: string }> {
  if (body.due_date !== undefined || (body.date === undefined && body.payment_terms === undefined)) return {};
  const date = (body.date !== undefined ? body.date : before?.date) ?? (await workspaceToday(trx, workspaceId));
  const terms = body.payment_terms ?? (before?.payment_terms as (typeof PAYMENT_TERMS)[number] | undefined) ?? 'due_on_receipt';
  return { due_date: new Date(dayMs(date) + (TERM_DAYS[terms] ?? 0) * 86_400_000).toISOString().slice(0, 10) };
}

/** E4: what an invoice with payments may no longer change. */
const MONEY_FIELDS = ['line_items', 'discount', 'discount_unit', 'tax_rate', 'tax_rate_id', 'total'] as const;

// D11: every referenced id, `event_ids` included, in the caller's workspace.
const refsOf = (body: InvoiceCreate | InvoiceUpdate) => ({
  ids: {
    contact_id: ['contacts', body.contact_id] as [string, number | null | undefined],
    property_id: ['properties', body.property_id] as [string, number | null | undefined],
    job_id: ['jobs', body.job_id] as [string, number | null | undefined],
    quote_id: ['quotes', body.quote_id] as [string, number | null | undefined],
    parent_id: ['invoices', body.parent_id] as [string, number | null | undefined],
    event_ids: ['events', body.event_ids] as [string, number[] | undefined],
  },
  users: { salesperson_id: body.salesperson_id },
});

/**
 * D16: `invoice_sent` / `invoice_paid` when the invoice enters that status, by any
 * path; entering `sent` also tells the admins and managers (SPEC Internal notifications).
 * The write's other events go `first` or `last`: all of them in one INSERT.
 */
export async function emitTransitions(
  trx: Kysely<DB>,
  workspaceId: number,
  before: string | null,
  invoice: InvoiceDetail,
  { first = [], last = [] }: { first?: OutboxEvent[]; last?: OutboxEvent[] } = {},
) {
  const events = [...first];
  if (enters(before, invoice.status, 'sent')) {
    events.push({ event: 'invoice_sent', resource: 'invoices', data: invoice });
    const data = { invoice_id: invoice.id, name: invoice.name, total: invoice.total, contact_id: invoice.contact_id };
    await notifyRoles(trx, workspaceId, 'invoices_sent', ADMINS_AND_MANAGERS, { type: 'invoice', id: invoice.id }, data);
  }
  if (enters(before, invoice.status, 'paid')) events.push({ event: 'invoice_paid', resource: 'invoices', data: invoice });
  await emitAll(trx, workspaceId, [...events, ...last]);
}

/** E14: every write to an invoice, status included. */
export const invoiceUpdated = (invoice: InvoiceDetail): OutboxEvent => ({ event: 'invoice_updated', resource: 'invoices', data: invoice });

/** The one function that creates an invoice (REST create, E6 from a job): D23, D11, D7, E2, E1 number, D16 events. */
export async function createInvoice(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  body: InvoiceCreate,
  /**
   * E22: `referencesRead`: the caller read every referenced id from the workspace's own
   * rows in this transaction; `number`: one it reserved (reserveNumbers) for this invoice.
   */
  { referencesRead = false, number: reserved }: { referencesRead?: boolean; number?: number } = {},
): Promise<InvoiceDetail> {
  await checkCustomFields(trx, workspaceId, 'invoice', body.custom_fields, { create: true }); // D23, on every create path
  if (!referencesRead) await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, null, body);
  const due = await dueDateOf(trx, workspaceId, body, null);
  const number = reserved ?? (await nextNumber(trx, workspaceId, 'invoices')); // E1
  const at = now();
  const invoice = await insertInvoice(trx, {
    ...invoiceCodec.encode({ payment_terms: 'due_on_receipt', status: 'draft', type: 'one-off', event_ids: [], ...omitPricing(body), ...pricing, ...due }),
    number,
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  await emitTransitions(trx, workspaceId, null, invoice, { first: [{ event: 'new_invoice', resource: 'invoices', data: invoice }] });
  return invoice;
}

/** A partial update: PUT, the status endpoint, or another module (`invoice_to_customer` -> sent). */
export async function updateInvoice(trx: Kysely<DB>, workspaceId: number, id: number, body: InvoiceUpdate): Promise<InvoiceDetail> {
  // Locked: two concurrent "mark paid" give one `invoice_paid`.
  const before = await findInvoice(trx, workspaceId, id, true);
  if (body.parent_id === id) throw invalidField(['parent_id'], 'an invoice cannot be its own parent');
  if (before.amount_paid > 0 && MONEY_FIELDS.some((f) => body[f] !== undefined)) throw conflict('Invoice has payments'); // E4
  await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  const due = await dueDateOf(trx, workspaceId, body, before);
  // E23: a draft that carries a deposit goes out partly (or wholly) paid already (E4).
  const status = body.status === 'sent' && before.amount_paid > 0 ? statusAfterPayments('sent', pricing.total, Math.round(before.amount_paid * 100)) : body.status;
  const at = now();
  // E22, E23: a cancelled invoice bills nothing: its visits are billable again and a deposit it carried goes back.
  const cancels = body.status === 'cancelled' && before.status !== 'cancelled';
  const released = cancels ? await releaseDeposits(trx, workspaceId, id) : 0;
  const paid = released ? { amount_paid_cents: Math.round(before.amount_paid * 100) - released } : {};
  const invoice = await updateInvoiceRow(trx, workspaceId, id, { ...invoiceCodec.encode({ ...omitPricing(body), ...pricing, ...due, status }), ...paid, updated_at: at });
  if (cancels) await unbillInvoice(trx, workspaceId, id, at);
  await emitTransitions(trx, workspaceId, before.status, invoice, { last: [invoiceUpdated(invoice)] });
  return invoice;
}

/**
 * E6: a draft invoice from a job: its contact, property, name, line items (new
 * ids) and pricing, `job_id`, and the job's `quote_id`; the total by D7. Dated
 * today in the workspace's timezone, so E2 derives its due date (issue 25: a null
 * date left the invoice without one). Created by createInvoice, so numbering,
 * custom field rules and `new_invoice` apply as on any create.
 */
export async function createInvoiceFromJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, jobId: number): Promise<InvoiceDetail> {
  const job = await findJobDetail(trx, workspaceId, jobId);
  if (!job) throw notFound('Job');
  return createInvoice(trx, workspaceId, userId, {
    contact_id: job.contact_id,
    property_id: job.property_id,
    name: job.name,
    line_items: copyLineItems(job.line_items),
    discount: job.discount,
    discount_unit: job.discount_unit,
    tax_rate: job.tax_rate,
    tax_rate_id: job.tax_rate_id,
    job_id: job.id,
    quote_id: job.quote_id,
    date: await workspaceToday(trx, workspaceId),
    status: 'draft',
  });
}

export const setInvoiceStatus = (trx: Kysely<DB>, workspaceId: number, id: number, status: InvoiceStatus) => updateInvoice(trx, workspaceId, id, { status });

export function invoicesService({ db }: AppContext): CrudService<InvoiceQuery, InvoiceCreate, InvoiceUpdate, InvoiceListItem, InvoiceDetail> {
  return {
    list: (auth, query) => listInvoices(db, auth.workspaceId, query),
    get: (auth, id) => getInvoiceDetail(db, auth.workspaceId, id),
    create: (auth, body) => transact(db, auth, (trx) => createInvoice(trx, auth.workspaceId, auth.userId, body)),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'invoice', body.custom_fields, { create: false }); // D23
        return updateInvoice(trx, auth.workspaceId, id, body);
      }),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; its child invoices lose their parent_id.
      // E4: an invoice with payments stays; read under its row lock so a concurrent payment is seen.
      // E22: its visits become billable again (events.invoice_id's foreign key sets null).
      await deleteWithAttachments(db, auth, 'invoice', id, 'Invoice', async (trx) => {
        // E23: a deposit it carried goes back to the quote first; any other payment keeps it.
        const paidCents = Math.round((await findInvoice(trx, auth.workspaceId, id, true)).amount_paid * 100);
        if (paidCents > (await releaseDeposits(trx, auth.workspaceId, id))) throw conflict('Invoice has payments');
        const gone = await invoices.remove(trx, auth.workspaceId, id);
        if (gone) await emit(trx, auth.workspaceId, 'invoice_deleted', 'invoices', { id }); // E14
        return gone;
      });
    },
  };
}
