import { BULK_ROWS } from '../../db/database.ts';
import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, InvoicesTable } from '../../db/schema.ts';
import { locked } from '../../db/locks.ts';
import { prepared } from '../../db/prepared.ts';
import { shapedQuery } from '../../db/shaped.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { dialectOf, parseJson } from '../../db/json-helpers.ts';
import { contactNameJson, documentRefJson, withContact } from '../../db/related.ts';
import { fromCents, totalCents } from '../../domain/money.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { csv } from '../../kernel/schemas.ts';
import { workspaceTimezone } from '../workspace/workspace.repo.ts';
import type { Invoice, InvoiceDetail, InvoiceQuery } from './invoices.schemas.ts';

export const invoiceCodec = tableCodec<Invoice>()('invoices', { json: ['line_items', 'event_ids', 'custom_fields'], omit: ['created_by', 'amount_paid_cents'] });
export const invoices = tenantRows('invoices');

/** E4: `amount_paid` and `balance` from the stored cents, never a float sum. */
const money = (total: number, paidCents: number) => ({ amount_paid: fromCents(paidCents), balance: fromCents(totalCents(total) - paidCents) });

/** The API record of a row; `extra`: the columns a query joined in, left to its caller. */
export function invoiceOf(row: Selectable<InvoicesTable>, extra?: ReadonlySet<string>): Invoice {
  return Object.assign(invoiceCodec.decode(row, extra), money(row.total, Number(row.amount_paid_cents ?? 0)));
}

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'number', 'name', 'status', 'total', 'date', 'due_date', 'created_at', 'updated_at']),
  searchContact: 'invoices.contact_id',
  search: ['name', sql`cast(number as text)`],
};

interface InvoiceFilters {
  ws: number;
  contact_id?: number;
  job_id?: number;
  exclude_children?: boolean;
  status?: string[];
  exclude_statuses?: string[];
  expand: boolean;
}
const list = listOf(listSpec, (db, f: InvoiceFilters) => {
  let qb = db
    .selectFrom('invoices')
    .select(['id', 'number', 'name', 'contact_id', 'status', 'total', 'amount_paid_cents', 'date', 'due_date'])
    .where('workspace_id', '=', f.ws);
  if (f.expand) qb = qb.select((eb) => contactNameJson(eb, dialectOf(db), 'invoices.contact_id').as('contact'));
  if (f.contact_id) qb = qb.where('contact_id', '=', f.contact_id);
  if (f.job_id) qb = qb.where('job_id', '=', f.job_id);
  if (f.exclude_children) qb = qb.where('parent_id', 'is', null);
  if (f.status) qb = qb.where('status', 'in', f.status);
  if (f.exclude_statuses) qb = qb.where('status', 'not in', f.exclude_statuses);
  return qb;
});

export async function listInvoices(db: Kysely<DB>, workspaceId: number, q: InvoiceQuery) {
  const filters: InvoiceFilters = {
    ws: workspaceId,
    contact_id: q.contact_id,
    job_id: q.job_id,
    exclude_children: q.exclude_children,
    status: q.status ? csv(q.status) : undefined,
    exclude_statuses: q.exclude_statuses ? csv(q.exclude_statuses) : undefined,
    expand: q.expand === 'contact',
  };
  const page = await list(db, filters, q);
  // One literal per row: rest and spread of each row cost this list as much as its serializer.
  const rows = page.rows.map((r) => {
    const { amount_paid, balance } = money(r.total, Number(r.amount_paid_cents));
    const item = {
      id: r.id,
      number: r.number,
      name: r.name,
      contact_id: r.contact_id,
      status: r.status,
      total: r.total,
      amount_paid,
      balance,
      date: r.date,
      due_date: r.due_date,
    };
    // A13 (F223): with expand=contact, the client's name.
    return filters.expand ? Object.assign(item, { contact: withContact(r).contact }) : item;
  });
  return { pagination: page.pagination, rows };
}

/** The row plus what its detail expands (contact, job), as one select list usable by select and returning. */
const detailRefs = (db: Kysely<DB>) => {
  const d = dialectOf(db);
  // Any builder with selectFrom will do (related.ts ParentBuilder).
  return (eb: Parameters<typeof contactNameJson>[0]) => [contactNameJson(eb, d, 'invoices.contact_id').as('contact'), documentRefJson(eb, d, 'invoices.job_id').as('job')];
};

const DETAIL_COLUMNS = new Set(['contact', 'job']);
function detailOf(row: Selectable<InvoicesTable> & { contact: string | null; job: string | null }): InvoiceDetail {
  const refs: Pick<InvoiceDetail, 'contact' | 'job'> = { contact: parseJson(row.contact), job: parseJson(row.job) };
  return Object.assign(invoiceOf(row, DETAIL_COLUMNS), refs);
}

/**
 * SPEC "Get invoice: expanded with contact, job and line items" in one statement.
 * `lock` holds the row until commit (status moves, payments: E4).
 */
export async function findInvoiceDetail(db: Kysely<DB>, workspaceId: number, id: number, { lock = false } = {}): Promise<InvoiceDetail | undefined> {
  const [row] = await detailById[Number(lock)](db, { ws: workspaceId, id });
  return row && detailOf(row);
}

// Built and compiled once per variant (a payment's locked read, the single GET): as quotes.repo.ts.
const detailById = [false, true].map((lock) =>
  prepared({ ws: 'number', id: 'number' }, (db, p) => {
    const qb = db.selectFrom('invoices').selectAll('invoices').select(detailRefs(db)).where('invoices.workspace_id', '=', p.ws).where('invoices.id', '=', p.id);
    return lock ? locked(db, qb) : qb;
  }),
);

/** Many invoices' single-GET shapes, BULK_ROWS ids per statement (E14: the daily run's `invoice_updated`). */
export async function findInvoiceDetails(db: Kysely<DB>, workspaceId: number, ids: readonly number[]): Promise<InvoiceDetail[]> {
  const out: InvoiceDetail[] = [];
  for (let i = 0; i < ids.length; i += BULK_ROWS) {
    const rows = await db
      .selectFrom('invoices')
      .selectAll('invoices')
      .select(detailRefs(db))
      .where('invoices.workspace_id', '=', workspaceId)
      .where('invoices.id', 'in', ids.slice(i, i + BULK_ROWS))
      .orderBy('invoices.id')
      .execute();
    out.push(...rows.map(detailOf));
  }
  return out;
}

/** Inserts the row and answers its detail from the same statement (RETURNING with the related lookups). */
export async function insertInvoice(db: Kysely<DB>, values: Insertable<InvoicesTable>): Promise<InvoiceDetail> {
  const [row] = await insertInvoiceQuery(db, values);
  return detailOf(row!);
}

// The writes' statements are compiled once per shape (which columns are set), as lists are (F165).
const insertInvoiceQuery = shapedQuery((db, values: Insertable<InvoicesTable>) => db.insertInto('invoices').values(values).returningAll().returning(detailRefs(db)));
// One flat object: shapedQuery keys a nested object by its JSON, values included.
const updateInvoiceQuery = shapedQuery((db, { where_ws, where_id, ...set }: Updateable<InvoicesTable> & { where_ws: number; where_id: number }) =>
  db.updateTable('invoices').set(set).where('invoices.workspace_id', '=', where_ws).where('invoices.id', '=', where_id).returningAll().returning(detailRefs(db)),
);

/** Updates the row and answers its detail from the same statement. */
export async function updateInvoiceRow(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<InvoicesTable>): Promise<InvoiceDetail> {
  const [row] = await updateInvoiceQuery(db, { ...values, where_ws: workspaceId, where_id: id });
  if (!row) throw new Error('updateInvoiceRow: no row');
  return detailOf(row);
}

/** Today in the workspace's time zone (E2, E3 defaults). */
export async function workspaceToday(db: Kysely<DB>, workspaceId: number, nowMs = Date.now()): Promise<string> {
  return zonedDate(nowMs, await workspaceTimezone(db, workspaceId));
}
