import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import type { Dialect } from '../../db/database.ts';
import { recordDeletions } from '../../db/deletions.ts';
import type { DB, TimeEntriesTable } from '../../db/schema.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { TIME_ENTRY_SORT, type TimeEntry, type TimeEntryQuery } from './time-entries.schemas.ts';

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(TIME_ENTRY_SORT),
  search: ['description'],
};

export const TIME_ENTRY_COLUMNS = [
  'id',
  'workspace_id',
  'timesheet_id',
  'user_id',
  'start_date',
  'end_date',
  'start_time',
  'end_time',
  'total_time',
  'description',
  'job_id',
  'request_id',
  'quote_id',
  'created_at',
  'updated_at',
] as const;

interface TimeEntryFilters {
  ws: number;
  start_date?: string;
  end_date?: string;
  /** Lower-cased. */
  user_id?: string;
  job_id?: number;
  request_id?: number;
  quote_id?: number;
}
const list = listOf(listSpec, (db, f: TimeEntryFilters) => {
  let qb = db.selectFrom('time_entries').select(TIME_ENTRY_COLUMNS).where('workspace_id', '=', f.ws);
  if (f.start_date) qb = qb.where('start_date', '>=', f.start_date);
  if (f.end_date) qb = qb.where('end_date', '<=', f.end_date);
  if (f.user_id) qb = qb.where('user_id', '=', f.user_id);
  if (f.job_id) qb = qb.where('job_id', '=', f.job_id);
  if (f.request_id) qb = qb.where('request_id', '=', f.request_id);
  if (f.quote_id) qb = qb.where('quote_id', '=', f.quote_id);
  return qb;
});

export async function listTimeEntries(db: Kysely<DB>, workspaceId: number, q: TimeEntryQuery) {
  const { start_date, end_date, job_id, request_id, quote_id } = q;
  return list(db, { ws: workspaceId, start_date, end_date, user_id: q.user_id?.toLowerCase(), job_id, request_id, quote_id }, q);
}

export async function findTimeEntry(db: Kysely<DB>, workspaceId: number, id: number): Promise<TimeEntry | undefined> {
  return db.selectFrom('time_entries').select(TIME_ENTRY_COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/**
 * The entry, locked until the transaction ends (PostgreSQL; SQLite runs one
 * transaction at a time): two writers of one entry can't both move it from the
 * timesheet they read.
 */
export async function lockTimeEntry(db: Kysely<DB>, dialect: Dialect, workspaceId: number, id: number): Promise<TimeEntry | undefined> {
  const qb = db.selectFrom('time_entries').select(TIME_ENTRY_COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id);
  return (dialect === 'postgres' ? qb.forUpdate() : qb).executeTakeFirst();
}

/** A timesheet's entries, in the order they were worked. */
export async function timesheetEntries(db: Kysely<DB>, workspaceId: number, timesheetId: number): Promise<TimeEntry[]> {
  return db
    .selectFrom('time_entries')
    .select(TIME_ENTRY_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('timesheet_id', '=', timesheetId)
    .orderBy('start_date')
    .orderBy(sql`coalesce(start_time, '')`) // nulls sort alike on both databases
    .orderBy('id')
    .execute();
}

export async function insertTimeEntry(db: Kysely<DB>, values: Insertable<TimeEntriesTable>) {
  return db
    .insertInto('time_entries')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updateTimeEntry(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<TimeEntriesTable>) {
  await db
    .updateTable('time_entries')
    .set(values)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function deleteTimeEntry(db: Kysely<DB>, workspaceId: number, id: number) {
  const r = await db.deleteFrom('time_entries').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (Number(r.numDeletedRows) > 0) await recordDeletions(db, workspaceId, 'time_entries', [id]); // E13, in the delete's transaction
}
