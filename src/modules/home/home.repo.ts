import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB } from '../../db/schema.ts';
import { shapedQuery } from '../../db/shaped.ts';

// Home's reads, compiled once (prepared(), shapedQuery()): they run on every visit to
// the app's first page, and building them cost more than running the counts.

const requestsWithStatus = prepared({ ws: 'number', status: 'string' }, (db, p) =>
  db.selectFrom('requests').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', p.ws).where('status', '=', p.status),
);
export const countRequestsWithStatus = async (db: Kysely<DB>, workspaceId: number, status: string) => Number((await requestsWithStatus(db, { ws: workspaceId, status }))[0]!.n);

const quotesWithStatus = prepared({ ws: 'number', status: 'string' }, (db, p) =>
  db.selectFrom('quotes').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', p.ws).where('status', '=', p.status),
);
export const countQuotesWithStatus = async (db: Kysely<DB>, workspaceId: number, status: string) => Number((await quotesWithStatus(db, { ws: workspaceId, status }))[0]!.n);

const jobsToInvoice = prepared({ ws: 'number' }, (db, p) =>
  db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('jobs.workspace_id', '=', p.ws)
    .where('jobs.status', '=', 'completed')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('invoices').select('invoices.id').where('invoices.workspace_id', '=', p.ws).whereRef('invoices.job_id', '=', 'jobs.id')))),
);

/** Completed jobs that no invoice names. */
export async function countJobsToInvoice(db: Kysely<DB>, workspaceId: number): Promise<number> {
  return Number((await jobsToInvoice(db, { ws: workspaceId }))[0]!.n);
}

const overdue = prepared({ ws: 'number', today: 'string' }, (db, p) =>
  db
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.countAll().as('n'),
      // `total` is stored in currency units; cents are rounded per invoice as E4 does (totalCents).
      sql<number | string | null>`sum(cast(round(${eb.ref('total')} * 100) as bigint) - ${eb.ref('amount_paid_cents')})`.as('due'),
    ])
    .where('workspace_id', '=', p.ws)
    // The IN lets both databases read the (workspace_id, status) index instead of every invoice.
    .where('status', 'in', ['overdue', 'partially_paid'])
    .where((eb) => eb.or([eb('status', '=', 'overdue'), eb('due_date', '<', p.today)])),
);

/**
 * Overdue invoices: status `overdue`, or partly paid past their due date (a payment
 * moves an overdue invoice to `partially_paid`, E4); how many, and the cents left to pay.
 */
export async function overdueInvoices(db: Kysely<DB>, workspaceId: number, today: string): Promise<{ count: number; dueCents: number }> {
  const [row] = await overdue(db, { ws: workspaceId, today });
  return { count: Number(row!.n), dueCents: Number(row!.due ?? 0) };
}

// The days of payment_days (0022: kept by triggers), summed over PostgreSQL's slots: at
// most 366 days whatever the number of payments; the months are summed here.
const paymentsByDay = prepared({ ws: 'number', from: 'string' }, (db, p) =>
  db
    .selectFrom('payment_days')
    .select((eb) => ['paid_on', eb.fn.sum<number | string>('cents').as('cents'), eb.fn.sum<number | string>('n').as('n')])
    .where('workspace_id', '=', p.ws)
    .where('paid_on', '>=', p.from)
    .groupBy('paid_on'),
);

/** Payment cents per `YYYY-MM` of `paid_on`, for payments on or after `fromDate`. */
export async function paymentsByMonth(db: Kysely<DB>, workspaceId: number, fromDate: string): Promise<{ month: string; cents: number; count: number }[]> {
  const months = new Map<string, { month: string; cents: number; count: number }>();
  for (const r of await paymentsByDay(db, { ws: workspaceId, from: fromDate })) {
    const month = String(r.paid_on).slice(0, 7);
    const m = months.get(month) ?? { month, cents: 0, count: 0 };
    m.cents += Number(r.cents);
    m.count += Number(r.n);
    months.set(month, m);
  }
  return [...months.values()];
}

const latest = shapedQuery((db, v: { ws: number; events: readonly string[]; limit: number }) =>
  db.selectFrom('outbox').select(['event', 'payload', 'created_at']).where('workspace_id', '=', v.ws).where('event', 'in', v.events).orderBy('id', 'desc').limit(v.limit),
);

/** The latest outbox rows (domain events) among `events`, newest first. */
export async function latestEvents(db: Kysely<DB>, workspaceId: number, events: readonly string[], limit: number) {
  if (!events.length || limit === 0) return [];
  return latest(db, { ws: workspaceId, events, limit });
}

const users = shapedQuery((db, v: { ws: number; uuids: readonly string[] }) =>
  db.selectFrom('users').select(['user_id', 'first_name', 'last_name']).where('workspace_id', '=', v.ws).where('user_id', 'in', v.uuids),
);

export async function usersByUuid(db: Kysely<DB>, workspaceId: number, uuids: string[]) {
  if (!uuids.length) return [];
  return users(db, { ws: workspaceId, uuids });
}

const setupState = prepared({ ws: 'number' }, (db, p) =>
  db
    .selectFrom('workspaces')
    .select((eb) => [
      // How customers reach the business (Settings -> Company): any of them given.
      sql<boolean>`(coalesce(workspaces.phone, '') <> '' or coalesce(workspaces.email, '') <> '' or coalesce(workspaces.address, '') <> '')`.as('company_details'),
      eb.exists(eb.selectFrom('services').select('services.id').where('services.workspace_id', '=', p.ws)).as('price_book'),
      eb.exists(eb.selectFrom('contacts').select('contacts.id').where('contacts.workspace_id', '=', p.ws)).as('first_client'),
      // Anyone besides the first member, invited or set up.
      sql<boolean>`(select count(*) from users where users.workspace_id = ${p.ws}) > 1`.as('team'),
    ])
    .where('workspaces.id', '=', p.ws),
);

/** F332: which of a new workspace's first steps are done, in one statement. */
export async function setupSteps(db: Kysely<DB>, workspaceId: number) {
  const row = (await setupState(db, { ws: workspaceId }))[0];
  // SQLite answers 0/1, PostgreSQL true/false.
  return { company_details: Boolean(row?.company_details), price_book: Boolean(row?.price_book), first_client: Boolean(row?.first_client), team: Boolean(row?.team) };
}
