import type { Kysely } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { csv } from '../../kernel/schemas.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { EVENT_SORT, type Event, type EventQuery } from './events.schemas.ts';

export const eventCodec = rowCodec<Event>({ bool: ['all_day', 'multi_day'] });

const listSpec: ListSpec = {
  id: 'id',
  sort: Object.fromEntries(EVENT_SORT.map((f) => [f, f])),
  search: ['name', 'description'],
};

const COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'description',
  'job_id',
  'request_id',
  'start_date',
  'end_date',
  'start_time',
  'end_time',
  'all_day',
  'multi_day',
  'type',
  'status',
  'created_at',
  'updated_at',
] as const;

type EventRow = Omit<Event, 'assignee_ids'>;

/** event id -> its assignees' UUIDs, for a page of events in one query. */
async function assigneeIds(db: Kysely<DB>, workspaceId: number, eventIds: number[]) {
  const map = new Map<number, string[]>(eventIds.map((id) => [id, []]));
  if (!eventIds.length) return map;
  const rows = await db
    .selectFrom('event_assignees')
    .select(['event_id', 'user_id'])
    .where('workspace_id', '=', workspaceId)
    .where('event_id', 'in', eventIds)
    .orderBy('user_id')
    .execute();
  for (const r of rows) map.get(r.event_id)?.push(r.user_id);
  return map;
}

async function withAssignees(db: Kysely<DB>, workspaceId: number, rows: EventRow[]): Promise<Event[]> {
  const ids = await assigneeIds(
    db,
    workspaceId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, assignee_ids: ids.get(r.id) ?? [] }));
}

export async function listEvents(db: Kysely<DB>, workspaceId: number, q: EventQuery) {
  let qb = db.selectFrom('events').select(COLUMNS).where('workspace_id', '=', workspaceId);
  if (q.start_date) qb = qb.where('start_date', '>=', q.start_date);
  if (q.end_date) qb = qb.where('end_date', '<=', q.end_date);
  if (q.job_id) qb = qb.where('job_id', '=', q.job_id);
  if (q.request_id) qb = qb.where('request_id', '=', q.request_id);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.status) qb = qb.where('status', 'in', csv(q.status));
  if (q.assignee_ids) {
    const users = csv(q.assignee_ids).map((u) => u.toLowerCase());
    qb = qb.where('id', 'in', (eb) =>
      eb.selectFrom('event_assignees').select('event_id').where('workspace_id', '=', workspaceId).where('user_id', 'in', users),
    );
  }
  const page = await paginate(qb, q, listSpec);
  return {
    rows: await withAssignees(
      db,
      workspaceId,
      page.rows.map((r) => eventCodec.decode(r)),
    ),
    pagination: page.pagination,
  };
}

export async function findEvent(db: Kysely<DB>, workspaceId: number, id: number): Promise<Event | undefined> {
  const row = await db.selectFrom('events').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return row && (await withAssignees(db, workspaceId, [eventCodec.decode(row)]))[0];
}

export async function findEventJob(db: Kysely<DB>, workspaceId: number, jobId: number | null) {
  if (jobId === null) return null;
  const job = await db
    .selectFrom('jobs')
    .select(['id', 'number', 'name', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', jobId)
    .executeTakeFirst();
  return job ?? null;
}

export async function insertEvent(db: Kysely<DB>, values: Record<string, unknown>) {
  return db
    .insertInto('events')
    .values(values as never)
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updateEvent(db: Kysely<DB>, workspaceId: number, id: number, values: Record<string, unknown>) {
  const r = await db
    .updateTable('events')
    .set(values as never)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Replaces the event's assignees with `userIds`. */
export async function setAssignees(db: Kysely<DB>, workspaceId: number, eventId: number, userIds: string[]) {
  await db.deleteFrom('event_assignees').where('workspace_id', '=', workspaceId).where('event_id', '=', eventId).execute();
  if (userIds.length) {
    await db
      .insertInto('event_assignees')
      .values(userIds.map((user_id) => ({ workspace_id: workspaceId, event_id: eventId, user_id })))
      .execute();
  }
}

export async function deleteEvent(db: Kysely<DB>, workspaceId: number, id: number) {
  const r = await db.deleteFrom('events').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
