import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';

export const countRequestsWithStatus = async (db: Kysely<DB>, workspaceId: number, status: string) =>
  Number((await db.selectFrom('requests').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).where('status', '=', status).executeTakeFirstOrThrow()).n);

export const countQuotesWithStatus = async (db: Kysely<DB>, workspaceId: number, status: string) =>
  Number((await db.selectFrom('quotes').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).where('status', '=', status).executeTakeFirstOrThrow()).n);

/** Completed jobs that no invoice names. */
export async function countJobsToInvoice(db: Kysely<DB>, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('jobs.workspace_id', '=', workspaceId)
    .where('jobs.status', '=', 'completed')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('invoices').select('invoices.id').where('invoices.workspace_id', '=', workspaceId).whereRef('invoices.job_id', '=', 'jobs.id'))),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Overdue invoices: status `overdue`, or partly paid past their due date (a payment
 * moves an overdue invoice to `partially_paid`, E4); how many, and the cents left to pay.
 */
export async function overdueInvoices(db: Kysely<DB>, workspaceId: number, today: string): Promise<{ count: number; dueCents: number }> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.countAll().as('n'),
      // `total` is stored in currency units; cents are rounded per invoice as E4 does (totalCents).
      sql<number | string | null>`sum(cast(round(${eb.ref('total')} * 100) as bigint) - ${eb.ref('amount_paid_cents')})`.as('due'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('status', '=', 'overdue'), eb.and([eb('status', '=', 'partially_paid'), eb('due_date', '<', today)])]))
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), dueCents: Number(row.due ?? 0) };
}

/** Payment cents per `YYYY-MM` of `paid_on`, for payments on or after `fromDate`. */
export async function paymentsByMonth(db: Kysely<DB>, workspaceId: number, fromDate: string): Promise<{ month: string; cents: number; count: number }[]> {
  const month = sql<string>`substr(paid_on, 1, 7)`;
  const rows = await db
    .selectFrom('invoice_payments')
    .select((eb) => [month.as('month'), eb.fn.sum<number | string>('amount_cents').as('cents'), eb.fn.countAll().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('paid_on', '>=', fromDate)
    .groupBy(month)
    .execute();
  return rows.map((r) => ({ month: r.month, cents: Number(r.cents), count: Number(r.n) }));
}

export async function workspaceTimezone(db: Kysely<DB>, workspaceId: number): Promise<string | null> {
  const row = await db.selectFrom('workspaces').select('timezone').where('id', '=', workspaceId).executeTakeFirst();
  return row?.timezone ?? null;
}

/** The latest outbox rows (domain events) among `events`, newest first. */
export async function latestEvents(db: Kysely<DB>, workspaceId: number, events: readonly string[], limit: number) {
  if (!events.length || limit === 0) return [];
  return db
    .selectFrom('outbox')
    .select(['event', 'payload', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('event', 'in', events)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function usersByUuid(db: Kysely<DB>, workspaceId: number, uuids: string[]) {
  if (!uuids.length) return [];
  return db.selectFrom('users').select(['user_id', 'first_name', 'last_name']).where('workspace_id', '=', workspaceId).where('user_id', 'in', uuids).execute();
}
