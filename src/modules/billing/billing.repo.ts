import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { BULK_ROWS } from '../../db/database.ts';
import { fromJson } from '../../db/json.ts';
import { locked } from '../../db/locks.ts';
import type { DB } from '../../db/schema.ts';
import type { LineItem, Unit } from '../../domain/line-items.ts';

// E22: what is billable, read and locked. A recurring job bills its completed visits
// that no invoice billed yet (`events.invoice_id` null, the partial index of 0029); a
// one-off job bills itself once it is completed and no invoice that is not cancelled
// names it (`job_id`), as E6's invoice does.

export interface BillableJob {
  id: number;
  number: number;
  name: string | null;
  contact_id: number | null;
  property_id: number | null;
  quote_id: number | null;
  type: string;
  line_items: LineItem[];
  discount: number;
  discount_unit: Unit;
  tax_rate: number;
  tax_rate_id: number | null;
  /** The client's name, for the list (null without a client). */
  contact: { id: number; first_name: string; last_name: string } | null;
}

export interface Visit {
  id: number;
  job_id: number;
  date: string;
}

export interface BillableFilters {
  through: string;
  contact_ids?: readonly number[];
  job_ids?: readonly number[];
  /** E22 automatic invoicing: only the jobs invoiced this way. */
  invoicing?: 'per_visit' | 'monthly';
}

type JobsBuilder = ExpressionBuilder<DB, 'jobs'>;

/** A job's completed visits not billed yet, through `through`. */
const unbilledVisits = (eb: JobsBuilder, through: string) =>
  eb
    .selectFrom('events as e')
    .select('e.id')
    .whereRef('e.workspace_id', '=', 'jobs.workspace_id')
    .whereRef('e.job_id', '=', 'jobs.id')
    .where('e.status', '=', 'completed')
    .where('e.invoice_id', 'is', null)
    .where('e.job_id', 'is not', null)
    .where('e.start_date', '<=', through);

/** An invoice that bills the job (any but a cancelled one). */
const liveInvoice = (eb: JobsBuilder) =>
  eb
    .selectFrom('invoices as i')
    .select('i.id')
    .whereRef('i.workspace_id', '=', 'jobs.workspace_id')
    .whereRef('i.job_id', '=', 'jobs.id')
    .where('i.status', '!=', 'cancelled');

function billableJobsQuery(db: Kysely<DB>, workspaceId: number, f: BillableFilters) {
  let qb = db
    .selectFrom('jobs')
    .where('jobs.workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.or([
        eb.and([eb('jobs.type', '=', 'recurring'), eb.exists(unbilledVisits(eb, f.through))]),
        eb.and([eb('jobs.type', '=', 'one-off'), eb('jobs.status', '=', 'completed'), eb.not(eb.exists(liveInvoice(eb)))]),
      ]),
    );
  if (f.contact_ids) qb = qb.where('jobs.contact_id', 'in', f.contact_ids.length ? f.contact_ids : [0]);
  if (f.job_ids) qb = qb.where('jobs.id', 'in', f.job_ids.length ? f.job_ids : [0]);
  if (f.invoicing) qb = qb.where('jobs.invoicing', '=', f.invoicing).where('jobs.type', '=', 'recurring');
  return qb;
}

const JOB_COLUMNS = [
  'jobs.id',
  'jobs.number',
  'jobs.name',
  'jobs.contact_id',
  'jobs.property_id',
  'jobs.quote_id',
  'jobs.type',
  'jobs.line_items',
  'jobs.discount',
  'jobs.discount_unit',
  'jobs.tax_rate',
  'jobs.tax_rate_id',
] as const;

/**
 * The billable jobs, ordered by client (last name, first name; jobs without a client
 * last) then job number; `page` limits them to one page of the list.
 */
export async function billableJobs(db: Kysely<DB>, workspaceId: number, f: BillableFilters, page?: { limit: number; offset: number }): Promise<BillableJob[]> {
  let qb = billableJobsQuery(db, workspaceId, f)
    .leftJoin('contacts as c', (j) => j.onRef('c.id', '=', 'jobs.contact_id').onRef('c.workspace_id', '=', 'jobs.workspace_id'))
    .select(JOB_COLUMNS)
    .select(['c.first_name', 'c.last_name'])
    .orderBy(sql`case when c.id is null then 1 else 0 end`)
    .orderBy(sql`lower(c.last_name)`)
    .orderBy(sql`lower(c.first_name)`)
    .orderBy('jobs.contact_id')
    .orderBy('jobs.number')
    .orderBy('jobs.id');
  if (page) qb = qb.limit(page.limit).offset(page.offset);
  const rows = await qb.execute();
  return rows.map(({ first_name, last_name, ...r }) => ({
    ...r,
    contact: r.contact_id !== null && first_name !== null ? { id: r.contact_id, first_name, last_name: last_name ?? '' } : null,
    line_items: fromJson<LineItem[]>(r.line_items) ?? [],
    discount_unit: r.discount_unit as Unit,
    discount: Number(r.discount),
    tax_rate: Number(r.tax_rate),
  }));
}

export async function countBillableJobs(db: Kysely<DB>, workspaceId: number, f: BillableFilters): Promise<number> {
  const row = await billableJobsQuery(db, workspaceId, f)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The unbilled completed visits of these jobs through `through`, in date order (read only: the list). */
export async function unbilledVisitsOf(db: Kysely<DB>, workspaceId: number, jobIds: readonly number[], through: string): Promise<Visit[]> {
  const out: Visit[] = [];
  for (let i = 0; i < jobIds.length; i += BULK_ROWS) {
    const rows = await db
      .selectFrom('events')
      .select(['id', 'job_id', 'start_date as date'])
      .where('workspace_id', '=', workspaceId)
      .where('job_id', 'in', jobIds.slice(i, i + BULK_ROWS))
      .where('status', '=', 'completed')
      .where('invoice_id', 'is', null)
      .where('start_date', '<=', through)
      .orderBy('start_date')
      .orderBy('id')
      .execute();
    for (const r of rows) out.push({ id: r.id, job_id: r.job_id as number, date: r.date });
  }
  return out;
}

/**
 * The job's visits to bill, locked until commit: completed, unbilled, through
 * `through` (or only `ids`). On PostgreSQL a concurrent biller waits here and then
 * sees the rows billed (the lock re-reads `invoice_id is null`): it gets none.
 */
export async function lockVisitsToBill(trx: Kysely<DB>, workspaceId: number, jobId: number, pick: { through: string } | { ids: number[] }): Promise<Visit[]> {
  let qb = trx
    .selectFrom('events')
    .select(['id', 'job_id', 'start_date as date'])
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .where('status', '=', 'completed')
    .where('invoice_id', 'is', null);
  qb = 'ids' in pick ? qb.where('id', 'in', pick.ids) : qb.where('start_date', '<=', pick.through);
  const rows = await locked(trx, qb.orderBy('start_date').orderBy('id')).execute();
  return rows.map((r) => ({ id: r.id, job_id: r.job_id as number, date: r.date }));
}

/**
 * lockVisitsToBill for many jobs at once (a batch, the monthly run): each job's
 * completed, unbilled visits through `through`, locked in id order (one order for
 * every biller), answered per job in date order.
 */
export async function lockVisitsOfJobs(trx: Kysely<DB>, workspaceId: number, jobIds: readonly number[], through: string): Promise<Map<number, Visit[]>> {
  const rows: Visit[] = [];
  for (let i = 0; i < jobIds.length; i += BULK_ROWS) {
    const qb = trx
      .selectFrom('events')
      .select(['id', 'job_id', 'start_date as date'])
      .where('workspace_id', '=', workspaceId)
      .where('job_id', 'in', jobIds.slice(i, i + BULK_ROWS))
      .where('status', '=', 'completed')
      .where('invoice_id', 'is', null)
      .where('start_date', '<=', through)
      .orderBy('id');
    for (const r of await locked(trx, qb).execute()) rows.push({ id: r.id, job_id: r.job_id as number, date: r.date });
  }
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id - b.id));
  const out = new Map<number, Visit[]>();
  for (const v of rows) {
    const list = out.get(v.job_id);
    if (list) list.push(v);
    else out.set(v.job_id, [v]);
  }
  return out;
}

/** A one-off job still to bill: locked, completed and with no invoice but cancelled ones. */
export async function lockOneOffToBill(trx: Kysely<DB>, workspaceId: number, jobId: number): Promise<boolean> {
  const job = await locked(
    trx,
    trx.selectFrom('jobs').select(['id', 'status']).where('workspace_id', '=', workspaceId).where('id', '=', jobId),
  ).executeTakeFirst();
  if (job?.status !== 'completed') return false;
  const billed = await trx
    .selectFrom('invoices')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .where('status', '!=', 'cancelled')
    .executeTakeFirst();
  return !billed;
}

/** The one write that bills visits: only those still unbilled; answers how many it billed. */
export async function markBilled(trx: Kysely<DB>, workspaceId: number, invoiceId: number, visitIds: readonly number[], at: string): Promise<number> {
  const r = await trx
    .updateTable('events')
    .set({ invoice_id: invoiceId, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', visitIds)
    .where('invoice_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** E22: the invoice's visits become billable again. */
export async function unbillInvoice(trx: Kysely<DB>, workspaceId: number, invoiceId: number, at: string): Promise<void> {
  await trx
    .updateTable('events')
    .set({ invoice_id: null, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .execute();
}
