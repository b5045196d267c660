import type { Kysely } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Invoice, InvoiceQuery } from './invoices.schemas.ts';

export const invoiceCodec = rowCodec<Invoice>({ json: ['line_items', 'event_ids', 'custom_fields'] });
export const invoices = tenantRows('invoices');

/** The API record of a row. */
export function invoiceOf(row: object): Invoice {
  const { created_by: _, ...rest } = row as Record<string, unknown>;
  return invoiceCodec.decode(rest);
}

const listSpec: ListSpec = {
  id: 'id',
  sort: Object.fromEntries(['id', 'name', 'status', 'total', 'date', 'due_date', 'created_at', 'updated_at'].map((f) => [f, f])),
  search: ['name'],
};

export function listInvoices(db: Kysely<DB>, workspaceId: number, q: InvoiceQuery) {
  let qb = db.selectFrom('invoices').select(['id', 'name', 'contact_id', 'status', 'total', 'date', 'due_date']).where('workspace_id', '=', workspaceId);
  if (q.contact_id) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.job_id) qb = qb.where('job_id', '=', q.job_id);
  if (q.exclude_children) qb = qb.where('parent_id', 'is', null);
  if (q.status) qb = qb.where('status', 'in', csv(q.status));
  if (q.exclude_statuses) qb = qb.where('status', 'not in', csv(q.exclude_statuses));
  return paginate(qb, q, listSpec);
}
