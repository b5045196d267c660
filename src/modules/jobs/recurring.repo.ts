import type { Insertable, Kysely } from 'kysely';
import { recordDeletions } from '../../db/deletions.ts';
import { locked } from '../../db/locks.ts';
import type { DB, EventsTable } from '../../db/schema.ts';
import { EVENT_COLUMNS } from '../events/events.repo.ts';

// E20/E21: a recurring job's visits, written set-based: a year of visits is one
// multi-row INSERT ... ON CONFLICT DO NOTHING (per chunk), its assignees one more,
// never a statement per visit. The unique key (workspace_id, job_id,
// occurrence_date) of migration 0024 makes every writer's insert idempotent.

/** Rows per INSERT: 17 parameters each, far below SQLite's 32,766 and PostgreSQL's 65,535. */
const VISIT_CHUNK = 500;
/** Assignee rows per INSERT: 3 parameters each. */
const ASSIGNEE_CHUNK = 2000;

export const VISIT_COLUMNS = EVENT_COLUMNS;

export type InsertedVisit = { [K in (typeof VISIT_COLUMNS)[number]]: K extends 'id' ? number : K extends 'occurrence_date' ? string | null : K extends keyof EventsTable ? EventsTable[K] extends { __select__: infer S } ? S : EventsTable[K] : never };

/** Inserts the visits no other writer made yet (ON CONFLICT DO NOTHING); returns those it made. */
export async function insertVisits(trx: Kysely<DB>, rows: readonly Insertable<EventsTable>[]): Promise<InsertedVisit[]> {
  const made: InsertedVisit[] = [];
  for (let i = 0; i < rows.length; i += VISIT_CHUNK) {
    const inserted = await trx
      .insertInto('events')
      .values(rows.slice(i, i + VISIT_CHUNK))
      .onConflict((oc) => oc.columns(['workspace_id', 'job_id', 'occurrence_date']).doNothing())
      .returning(VISIT_COLUMNS)
      .execute();
    made.push(...(inserted as InsertedVisit[]));
  }
  return made;
}

export async function insertVisitAssignees(trx: Kysely<DB>, rows: readonly { workspace_id: number; event_id: number; user_id: string }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ASSIGNEE_CHUNK) await trx.insertInto('event_assignees').values(rows.slice(i, i + ASSIGNEE_CHUNK)).execute();
}

/**
 * E21: the job's visits from `fromDate` on that a rule change replaces: still
 * `scheduled` and not detached. Deleted with their comments and upload links (D12),
 * recorded in the deletions feed (E13); returns their ids.
 */
export async function deleteReplaceableVisits(trx: Kysely<DB>, workspaceId: number, jobId: number, fromDate: string): Promise<number[]> {
  const gone = await trx
    .deleteFrom('events')
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .where('occurrence_date', '>=', fromDate)
    .where('status', '=', 'scheduled')
    .where('detached', '=', 0)
    .returning('id')
    .execute();
  const ids = gone.map((r) => r.id).sort((a, b) => a - b);
  if (!ids.length) return ids;
  await trx.deleteFrom('comments').where('workspace_id', '=', workspaceId).where('related_type', '=', 'event').where('related_id', 'in', ids).execute();
  await recordDeletions(trx, workspaceId, 'events', ids);
  return ids;
}

/** Of `ids`, the events that have upload links (rare on visits: their files are released one event at a time). */
export async function eventsWithFiles(trx: Kysely<DB>, workspaceId: number, ids: readonly number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await trx
    .selectFrom('upload_links')
    .select('module_id')
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('module_type', '=', 'event')
    .where('module_id', 'in', ids)
    .execute();
  return rows.map((r) => r.module_id);
}

/** The visits' dates from `today` on that are still to be done (E20 `next_visit_on`). */
export async function nextVisitOn(db: Kysely<DB>, workspaceId: number, jobId: number, today: string): Promise<string | null> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min('start_date').as('next'))
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .where('occurrence_date', 'is not', null)
    .where('status', 'not in', CLOSED_VISIT)
    .where('start_date', '>=', today)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}
export const CLOSED_VISIT = ['completed', 'cancelled', 'missed'];

export interface SeriesRow {
  id: number;
  number: number;
  name: string | null;
  status: string;
  schedule: string | null;
  generated_through: string | null;
}

/** The daily run's series: open, with a rule, made through a date before `horizon`; locked until commit. */
export function seriesToExtend(trx: Kysely<DB>, workspaceId: number, horizon: string): Promise<SeriesRow[]> {
  return locked(
    trx,
    trx
      .selectFrom('jobs')
      .select(['id', 'number', 'name', 'status', 'schedule', 'generated_through'])
      .where('workspace_id', '=', workspaceId)
      .where('generated_through', '<', horizon)
      .where('schedule', 'is not', null)
      .where('status', 'not in', ['completed', 'cancelled'])
      .orderBy('id'),
  ).execute();
}

/** Records how far the jobs' visits were made (bookkeeping: `updated_at` stays). */
export async function setGeneratedThrough(trx: Kysely<DB>, workspaceId: number, ids: readonly number[], date: string): Promise<void> {
  for (let i = 0; i < ids.length; i += ASSIGNEE_CHUNK) {
    await trx.updateTable('jobs').set({ generated_through: date }).where('workspace_id', '=', workspaceId).where('id', 'in', ids.slice(i, i + ASSIGNEE_CHUNK)).execute();
  }
}

/** The workspace's time zone (null: UTC). */
export async function workspaceZone(db: Kysely<DB>, workspaceId: number): Promise<string | null> {
  const row = await db.selectFrom('workspaces').select('timezone').where('id', '=', workspaceId).executeTakeFirst();
  return row?.timezone ?? null;
}

/** A job's stored rule, its row locked until commit (E21: a deleted visit's date joins `skipped_dates`). */
export async function lockJobSchedule(trx: Kysely<DB>, workspaceId: number, jobId: number): Promise<{ schedule: string | null } | undefined> {
  return locked(trx, trx.selectFrom('jobs').select('schedule').where('workspace_id', '=', workspaceId).where('id', '=', jobId)).executeTakeFirst();
}

export async function writeJobSchedule(trx: Kysely<DB>, workspaceId: number, jobId: number, schedule: string, at: string): Promise<void> {
  await trx.updateTable('jobs').set({ schedule, updated_at: at }).where('workspace_id', '=', workspaceId).where('id', '=', jobId).execute();
}
