import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {omitPricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { checkReferences } from '../../db/references.ts';
import { contactName, documentRef } from '../../db/related.ts';
import { enters, type InvoiceStatus } from '../../domain/statuses.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { invoiceCodec, invoiceOf, invoices, listInvoices } from './invoices.repo.ts';
import type { Invoice, InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceUpdate } from './invoices.schemas.ts';
import { checkCustomFields } from '../custom-fields/custom-fields.service.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';

async function findInvoice(db: Kysely<DB>, workspaceId: number, id: number, lock = false): Promise<Invoice> {
  const row = await invoices.find(db, workspaceId, id, { lock });
  if (!row) throw notFound('Invoice');
  return invoiceOf(row);
}

export async function getInvoiceDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<InvoiceDetail> {
  const invoice = await findInvoice(db, workspaceId, id);
  return {
    ...invoice,
    contact: await contactName(db, workspaceId, invoice.contact_id),
    job: await documentRef(db, 'jobs', workspaceId, invoice.job_id),
  };
}

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
 */
async function emitTransitions(trx: Kysely<DB>, workspaceId: number, before: string | null, invoice: InvoiceDetail) {
  if (enters(before, invoice.status, 'sent')) {
    await emit(trx, workspaceId, 'invoice_sent', 'invoices', invoice);
    const data = { invoice_id: invoice.id, name: invoice.name, total: invoice.total, contact_id: invoice.contact_id };
    await notifyRoles(trx, workspaceId, 'invoices_sent', ADMINS_AND_MANAGERS, { type: 'invoice', id: invoice.id }, data);
  }
  if (enters(before, invoice.status, 'paid')) await emit(trx, workspaceId, 'invoice_paid', 'invoices', invoice);
}

export async function createInvoice(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: InvoiceCreate): Promise<InvoiceDetail> {
  await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, null, body);
  const at = now();
  const id = await invoices.insert(trx, {
    ...invoiceCodec.encode({ payment_terms: 'due_on_receipt', status: 'draft', type: 'one-off', event_ids: [], ...omitPricing(body), ...pricing }),
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  const invoice = await getInvoiceDetail(trx, workspaceId, id);
  await emit(trx, workspaceId, 'new_invoice', 'invoices', invoice);
  await emitTransitions(trx, workspaceId, null, invoice);
  return invoice;
}

/** A partial update: PUT, the status endpoint, or another module (`invoice_to_customer` -> sent). */
export async function updateInvoice(trx: Kysely<DB>, workspaceId: number, id: number, body: InvoiceUpdate): Promise<InvoiceDetail> {
  // Locked: two concurrent "mark paid" give one `invoice_paid`.
  const before = await findInvoice(trx, workspaceId, id, true);
  if (body.parent_id === id) throw invalidField(['parent_id'], 'an invoice cannot be its own parent');
  await checkReferences(trx, workspaceId, refsOf(body));
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  await invoices.update(trx, workspaceId, id, { ...invoiceCodec.encode({ ...omitPricing(body), ...pricing }), updated_at: now() });
  const invoice = await getInvoiceDetail(trx, workspaceId, id);
  await emitTransitions(trx, workspaceId, before.status, invoice);
  return invoice;
}

export const setInvoiceStatus = (trx: Kysely<DB>, workspaceId: number, id: number, status: InvoiceStatus) => updateInvoice(trx, workspaceId, id, { status });

export function invoicesService({ db }: AppContext): CrudService<InvoiceQuery, InvoiceCreate, InvoiceUpdate, InvoiceListItem, InvoiceDetail> {
  return {
    list: (auth, query) => listInvoices(db, auth.workspaceId, query),
    get: (auth, id) => getInvoiceDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'invoice', body.custom_fields, { create: true }); // D23
        return createInvoice(trx, auth.workspaceId, auth.userId, body);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'invoice', body.custom_fields, { create: false }); // D23
        return updateInvoice(trx, auth.workspaceId, id, body);
      }),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; its child invoices lose their parent_id.
      await deleteWithAttachments(db, auth, 'invoice', id, 'Invoice', (trx) => invoices.remove(trx, auth.workspaceId, id));
    },
  };
}
