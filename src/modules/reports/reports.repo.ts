import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../../db/json-helpers.ts';
import type { DB } from '../../db/schema.ts';

// E27: every report's SQL. Money leaves the database as integer cents (a D7 total is a
// float rounded to cents: rounded once per document, as E4 reads it), hours as sums of
// `total_time`; the service turns them into rows. Every statement starts from an index
// that begins with the workspace and the date the report selects by (0027, 0003, 0022).

/** Invoices that count as revenue (E27): neither draft nor cancelled. */
const UNCOUNTED = ['draft', 'cancelled'];
/** Invoices whose balance is owed (E27 receivables). */
const OPEN = ['sent', 'partially_paid', 'overdue'];

const cents = (column: string) => sql<number | string>`sum(cast(round(${sql.ref(column)} * 100) as bigint))`;
const num = (v: number | string | null | undefined): number => Number(v ?? 0);

export interface Range {
  from: string;
  to: string;
}

/** Invoiced cents per `YYYY-MM` of the invoice's date. */
export async function invoicedByMonth(db: Kysely<DB>, workspaceId: number, r: Range) {
  const rows = await db
    .selectFrom('invoices')
    .select([sql<string>`substr(date, 1, 7)`.as('month'), cents('total').as('cents')])
    .where('workspace_id', '=', workspaceId)
    .where('date', '>=', r.from)
    .where('date', '<=', r.to)
    .where('status', 'not in', UNCOUNTED)
    .groupBy(sql`substr(date, 1, 7)`)
    .execute();
  return rows.map((x) => ({ month: x.month, cents: num(x.cents) }));
}

/** Collected cents per `YYYY-MM` of `paid_on`, from the days kept by triggers (0022). */
export async function collectedByMonth(db: Kysely<DB>, workspaceId: number, r: Range) {
  const rows = await db
    .selectFrom('payment_days')
    .select([sql<string>`substr(paid_on, 1, 7)`.as('month'), (eb) => eb.fn.sum<number | string>('cents').as('cents')])
    .where('workspace_id', '=', workspaceId)
    .where('paid_on', '>=', r.from)
    .where('paid_on', '<=', r.to)
    .groupBy(sql`substr(paid_on, 1, 7)`)
    .execute();
  return rows.map((x) => ({ month: x.month, cents: num(x.cents) }));
}

/** Invoiced cents per client (null: invoices without one). */
export async function invoicedByClient(db: Kysely<DB>, workspaceId: number, r: Range) {
  const rows = await db
    .selectFrom('invoices')
    .select(['contact_id', cents('total').as('cents')])
    .where('workspace_id', '=', workspaceId)
    .where('date', '>=', r.from)
    .where('date', '<=', r.to)
    .where('status', 'not in', UNCOUNTED)
    .groupBy('contact_id')
    .execute();
  return rows.map((x) => ({ contact_id: x.contact_id, cents: num(x.cents) }));
}

/** Collected cents per client of the paid invoice. */
export async function collectedByClient(db: Kysely<DB>, workspaceId: number, r: Range) {
  const rows = await db
    .selectFrom('invoice_payments as p')
    .innerJoin('invoices as i', (j) => j.onRef('i.id', '=', 'p.invoice_id').on('i.workspace_id', '=', workspaceId))
    .select(['i.contact_id', (eb) => eb.fn.sum<number | string>('p.amount_cents').as('cents')])
    .where('p.workspace_id', '=', workspaceId)
    .where('p.paid_on', '>=', r.from)
    .where('p.paid_on', '<=', r.to)
    .groupBy('i.contact_id')
    .execute();
  return rows.map((x) => ({ contact_id: x.contact_id, cents: num(x.cents) }));
}

/** The line items (JSON text) of the invoices that count, dated in the range. */
export function countedInvoiceLines(db: Kysely<DB>, workspaceId: number, r: Range) {
  return db
    .selectFrom('invoices')
    .select('line_items')
    .where('workspace_id', '=', workspaceId)
    .where('date', '>=', r.from)
    .where('date', '<=', r.to)
    .where('status', 'not in', UNCOUNTED)
    .execute();
}

/** Client names by id (first and last name, else the company). */
export async function contactNames(db: Kysely<DB>, workspaceId: number, ids: number[]): Promise<Map<number, string>> {
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('contacts')
      .select(['id', 'first_name', 'last_name', 'company'])
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const c of rows) names.set(c.id, `${c.first_name} ${c.last_name}`.trim() || c.company || '');
  }
  return names;
}

/**
 * Open balances per client in cents, by age at `asOf`: the cut dates are the last due
 * dates of each bucket (`due1` = asOf - 1 day, ...), so plain text comparisons of
 * `YYYY-MM-DD` do the day arithmetic on both databases.
 */
export async function receivablesByClient(db: Kysely<DB>, workspaceId: number, cut: { asOf: string; d1: string; d30: string; d60: string; d90: string }) {
  const balance = sql<number>`(cast(round(total * 100) as bigint) - amount_paid_cents)`;
  const bucket = (cond: ReturnType<typeof sql>) => sql<number | string>`sum(case when ${cond} then ${balance} else 0 end)`;
  const rows = await db
    .selectFrom('invoices')
    .select([
      'contact_id',
      bucket(sql`due_date is null or due_date >= ${cut.asOf}`).as('current'),
      bucket(sql`due_date <= ${cut.d1} and due_date >= ${cut.d30}`).as('d1_30'),
      bucket(sql`due_date < ${cut.d30} and due_date >= ${cut.d60}`).as('d31_60'),
      bucket(sql`due_date < ${cut.d60} and due_date >= ${cut.d90}`).as('d61_90'),
      bucket(sql`due_date < ${cut.d90}`).as('d90'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('status', 'in', OPEN)
    .groupBy('contact_id')
    .execute();
  return rows.map((x) => ({
    contact_id: x.contact_id,
    current: num(x.current),
    days_1_30: num(x.d1_30),
    days_31_60: num(x.d31_60),
    days_61_90: num(x.d61_90),
    days_over_90: num(x.d90),
  }));
}

/** Jobs with a time entry, a counted invoice or an expense dated in the range. */
export async function activeJobIds(db: Kysely<DB>, workspaceId: number, r: Range): Promise<number[]> {
  const timed = db
    .selectFrom('time_entries')
    .select('job_id')
    .where('workspace_id', '=', workspaceId)
    .where('start_date', '>=', r.from)
    .where('start_date', '<=', r.to)
    .where('job_id', 'is not', null);
  const invoiced = db
    .selectFrom('invoices')
    .select('job_id')
    .where('workspace_id', '=', workspaceId)
    .where('date', '>=', r.from)
    .where('date', '<=', r.to)
    .where('status', 'not in', UNCOUNTED)
    .where('job_id', 'is not', null);
  // F264: expenses live in the job's JSON (D10); each database reads the array itself.
  const expense =
    dialectOf(db) === 'postgres'
      ? sql<{ job_id: number }>`select j.id as job_id from jobs j cross join lateral jsonb_array_elements(j.expenses::jsonb) e
          where j.workspace_id = ${workspaceId} and j.expenses::text <> '[]' and e->>'date' >= ${r.from} and e->>'date' <= ${r.to}`
      : sql<{ job_id: number }>`select j.id as job_id from jobs j, json_each(j.expenses) e
          where j.workspace_id = ${workspaceId} and j.expenses <> '[]' and json_extract(e.value, '$.date') >= ${r.from} and json_extract(e.value, '$.date') <= ${r.to}`;
  const [a, b, c] = await Promise.all([timed.distinct().execute(), invoiced.distinct().execute(), expense.execute(db)]);
  const ids = new Set<number>();
  for (const x of [...a, ...b, ...c.rows]) if (x.job_id !== null) ids.add(Number(x.job_id));
  return [...ids].sort((x, y) => x - y);
}

const chunks = <T>(items: T[], size = 500): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, i * size + size));

/** The jobs' numbers, names, clients, line items and expenses (JSON text). */
export async function jobsForCosting(db: Kysely<DB>, workspaceId: number, ids: number[]) {
  const out = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('jobs')
        .select(['id', 'number', 'name', 'contact_id', 'line_items', 'expenses'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', part)
        .execute()),
    );
  }
  return out;
}

/** The counted invoices of the jobs (every date): what their revenue is computed from. */
export async function jobInvoices(db: Kysely<DB>, workspaceId: number, ids: number[]) {
  const out = [];
  for (const part of chunks(ids)) {
    out.push(
      ...(await db
        .selectFrom('invoices')
        .select(['job_id', 'line_items', 'discount', 'discount_unit', 'tax_rate', 'total'])
        .where('workspace_id', '=', workspaceId)
        .where('job_id', 'in', part)
        .where('status', 'not in', UNCOUNTED)
        .execute()),
    );
  }
  return out;
}

/** The jobs' hours per member, with the member's cost per hour in cents (null when unset). */
export async function jobHoursByMember(db: Kysely<DB>, workspaceId: number, ids: number[]) {
  const out = [];
  for (const part of chunks(ids)) {
    const rows = await db
      .selectFrom('time_entries as t')
      .leftJoin('users as u', (j) => j.onRef('u.user_id', '=', 't.user_id').on('u.workspace_id', '=', workspaceId))
      .select(['t.job_id', 't.user_id', 'u.cost_rate_cents', (eb) => eb.fn.sum<number | string>('t.total_time').as('hours')])
      .where('t.workspace_id', '=', workspaceId)
      .where('t.job_id', 'in', part)
      .groupBy(['t.job_id', 't.user_id', 'u.cost_rate_cents'])
      .execute();
    out.push(...rows.map((x) => ({ job_id: Number(x.job_id), cost_rate_cents: x.cost_rate_cents, hours: num(x.hours) })));
  }
  return out;
}

/** Hours per member, timesheet week and timesheet status, of entries dated in the range. */
export async function hoursByMemberWeek(db: Kysely<DB>, workspaceId: number, r: Range) {
  const rows = await db
    .selectFrom('time_entries as t')
    .innerJoin('timesheets as s', (j) => j.onRef('s.id', '=', 't.timesheet_id').on('s.workspace_id', '=', workspaceId))
    .leftJoin('users as u', (j) => j.onRef('u.user_id', '=', 't.user_id').on('u.workspace_id', '=', workspaceId))
    .select(['t.user_id', 's.start_date', 's.status', 'u.first_name', 'u.last_name', 'u.email', (eb) => eb.fn.sum<number | string>('t.total_time').as('hours')])
    .where('t.workspace_id', '=', workspaceId)
    .where('t.start_date', '>=', r.from)
    .where('t.start_date', '<=', r.to)
    .groupBy(['t.user_id', 's.start_date', 's.status', 'u.first_name', 'u.last_name', 'u.email'])
    .execute();
  return rows.map((x) => ({ ...x, hours: num(x.hours) }));
}

/**
 * Quotes first sent (their first move to `awaiting_response`) between two instants,
 * with their totals and whether they were ever accepted or declined.
 */
export async function quotesFirstSent(db: Kysely<DB>, workspaceId: number, fromAt: string, toAt: string) {
  const rows = await db
    .selectFrom('quote_status_changes as c')
    .innerJoin('quotes as q', (j) => j.onRef('q.id', '=', 'c.quote_id').on('q.workspace_id', '=', workspaceId))
    .select((eb) => [
      'c.quote_id',
      eb.fn.min('c.created_at').as('sent_at'),
      'q.total',
      eb
        .exists(
          eb
            .selectFrom('quote_status_changes as a')
            .select('a.id')
            .where('a.workspace_id', '=', workspaceId)
            .whereRef('a.quote_id', '=', 'c.quote_id')
            .where('a.status', '=', 'accepted'),
        )
        .as('accepted'),
      eb
        .exists(
          eb
            .selectFrom('quote_status_changes as d')
            .select('d.id')
            .where('d.workspace_id', '=', workspaceId)
            .whereRef('d.quote_id', '=', 'c.quote_id')
            .where('d.status', '=', 'declined'),
        )
        .as('declined'),
    ])
    .where('c.workspace_id', '=', workspaceId)
    .where('c.status', '=', 'awaiting_response')
    .where('c.created_at', '>=', fromAt)
    .where('c.created_at', '<', toAt)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('quote_status_changes as e')
            .select('e.id')
            .where('e.workspace_id', '=', workspaceId)
            .whereRef('e.quote_id', '=', 'c.quote_id')
            .where('e.status', '=', 'awaiting_response')
            .whereRef('e.created_at', '<', 'c.created_at'),
        ),
      ),
    )
    .groupBy(['c.quote_id', 'q.total'])
    .execute();
  return rows.map((x) => ({ quote_id: x.quote_id, sent_at: String(x.sent_at), total: Number(x.total), accepted: !!Number(x.accepted), declined: !!Number(x.declined) }));
}
