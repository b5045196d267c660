import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { TIMESHEET_SORT, type Timesheet, type TimesheetQuery } from './timesheets.schemas.ts';

const listSpec: ListSpec = { id: 'id', sort: sortByName(TIMESHEET_SORT) };

const COLUMNS = ['id', 'workspace_id', 'user_id', 'status', 'start_date', 'end_date', 'total_time', 'created_at', 'updated_at'] as const;

const list = listOf(listSpec, (db, f: { ws: number; start_date?: string; end_date?: string; user_id?: string; status?: string }) => {
  let qb = db.selectFrom('timesheets').select(COLUMNS).where('workspace_id', '=', f.ws);
  if (f.start_date) qb = qb.where('start_date', '>=', f.start_date);
  if (f.end_date) qb = qb.where('end_date', '<=', f.end_date);
  if (f.user_id) qb = qb.where('user_id', '=', f.user_id);
  if (f.status) qb = qb.where('status', '=', f.status);
  return qb;
});

export async function listTimesheets(db: Kysely<DB>, workspaceId: number, q: TimesheetQuery) {
  const filters = { ws: workspaceId, start_date: q.start_date, end_date: q.end_date, user_id: q.user_id?.toLowerCase(), status: q.status };
  return list(db, filters, q);
}

export async function findTimesheet(db: Kysely<DB>, workspaceId: number, id: number): Promise<Timesheet | undefined> {
  return db.selectFrom('timesheets').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export async function setTimesheetStatus(db: Kysely<DB>, workspaceId: number, id: number, status: string) {
  const r = await db
    .updateTable('timesheets')
    .set({ status, updated_at: now() })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * D9: the id of the user's timesheet for the week, created (draft, total 0) when
 * missing. The unique (workspace, user, week) key makes concurrent creators meet
 * on one row: the loser's insert does nothing and it reads the winner's.
 */
export async function ensureTimesheet(db: Kysely<DB>, workspaceId: number, userId: string, week: { start_date: string; end_date: string }): Promise<number> {
  const at = now();
  await db
    .insertInto('timesheets')
    .values({ workspace_id: workspaceId, user_id: userId, ...week, status: 'draft', total_time: 0, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['workspace_id', 'user_id', 'start_date']).doNothing())
    .execute();
  const row = await db
    .selectFrom('timesheets')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('start_date', '=', week.start_date)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Locks the timesheets an entry write touches, in id order (no deadlocks), before
 * the entry is written. Every writer of a timesheet's entries holds its lock, so the
 * recompute that follows reads a settled set of entries (PostgreSQL's read committed
 * gives each later statement a snapshot taken after the lock). SQLite runs one
 * write transaction at a time and needs none.
 */
export async function lockTimesheets(db: Kysely<DB>, dialect: Dialect, workspaceId: number, ids: number[]): Promise<void> {
  if (dialect !== 'postgres') return;
  await db
    .selectFrom('timesheets')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .forNoKeyUpdate() // does not block the entries' foreign-key checks (key share)
    .execute();
}

/**
 * D9: each total set to the sum of its entries, recomputed in SQL rather than
 * incremented, so no interleaving of writers can make it drift. Entries carry two
 * decimals; the rounding only sheds the float noise of the sum. A timesheet left
 * without entries stays, with total 0: it was the user's week and may carry a
 * status or comments.
 */
export async function recomputeTotals(db: Kysely<DB>, workspaceId: number, ids: number[]): Promise<void> {
  await db
    .updateTable('timesheets')
    .set({
      total_time: sql<number>`(select round(cast(coalesce(sum(e.total_time), 0) as numeric), 2) from time_entries e where e.workspace_id = timesheets.workspace_id and e.timesheet_id = timesheets.id)`,
      updated_at: now(),
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
}
