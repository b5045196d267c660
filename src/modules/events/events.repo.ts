import type { ExpressionBuilder, Insertable, Kysely, Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, EventsTable } from '../../db/schema.ts';
import { recordDeletions } from '../../db/deletions.ts';
import { csv } from '../../kernel/schemas.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { type Dialect, dialectOf, jsonArrayFrom, parseJson } from '../../db/json-helpers.ts';
import { documentRefJson } from '../../db/related.ts';
import { EVENT_SORT, type Event, type EventDetail, type EventQuery } from './events.schemas.ts';

export const eventCodec = tableCodec<Event>()('events', { bool: ['all_day', 'multi_day', 'detached'] });

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(EVENT_SORT),
  search: ['name', 'description'],
};

/** An event's own columns, as every read and the recurring series' inserts return them. */
export const EVENT_COLUMNS = [
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
  'customer_confirmed_at',
  'occurrence_date',
  'detached',
  'created_at',
  'updated_at',
] as const;

type EventBuilder = ExpressionBuilder<DB, 'events'>;

/** The event's assignees, ordered by UUID, with their names (null when the user is gone), as JSON text. */
const assigneesJson = (eb: EventBuilder, d: Dialect) =>
  jsonArrayFrom(
    d,
    eb
      .selectFrom('event_assignees as a')
      .leftJoin('users as u', (j) => j.onRef('u.workspace_id', '=', 'a.workspace_id').onRef('u.user_id', '=', 'a.user_id'))
      .select(['a.user_id', 'u.first_name', 'u.last_name', 'u.id as member'])
      .whereRef('a.workspace_id', '=', 'events.workspace_id')
      .whereRef('a.event_id', '=', 'events.id')
      .orderBy('a.user_id'),
  );

/** The list's assignees: their ids only (`assignee_ids`), so no join with the users. */
const assigneeIdsJson = (eb: EventBuilder, d: Dialect) =>
  jsonArrayFrom(
    d,
    eb
      .selectFrom('event_assignees as a')
      .select('a.user_id')
      .whereRef('a.workspace_id', '=', 'events.workspace_id')
      .whereRef('a.event_id', '=', 'events.id')
      .orderBy('a.user_id'),
  );

interface Assignee {
  user_id: string;
  first_name: string | null;
  last_name: string | null;
  member: number | null;
}

interface EventFilters {
  ws: number;
  start_date?: string;
  end_date?: string;
  ends_on_or_after?: string;
  starts_on_or_before?: string;
  job_id?: number;
  request_id?: number;
  contact_id?: number;
  type?: string;
  status?: string[];
  /** Lower-cased. */
  assignee_ids?: string[];
}
const list = listOf(listSpec, (db, f: EventFilters) => {
  const d = dialectOf(db);
  let qb = db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .select((eb) => assigneeIdsJson(eb, d).as('assignees'))
    .where('workspace_id', '=', f.ws);
  if (f.start_date) qb = qb.where('start_date', '>=', f.start_date);
  if (f.end_date) qb = qb.where('end_date', '<=', f.end_date);
  if (f.ends_on_or_after) qb = qb.where('end_date', '>=', f.ends_on_or_after);
  if (f.starts_on_or_before) qb = qb.where('start_date', '<=', f.starts_on_or_before);
  if (f.job_id) qb = qb.where('job_id', '=', f.job_id);
  if (f.request_id) qb = qb.where('request_id', '=', f.request_id);
  const contactId = f.contact_id;
  if (contactId) {
    // A89: through the event's job or request, both of this workspace
    qb = qb.where((eb) =>
      eb.or([
        eb('job_id', 'in', eb.selectFrom('jobs').select('id').where('workspace_id', '=', f.ws).where('contact_id', '=', contactId)),
        eb('request_id', 'in', eb.selectFrom('requests').select('id').where('workspace_id', '=', f.ws).where('contact_id', '=', contactId)),
      ]),
    );
  }
  if (f.type) qb = qb.where('type', '=', f.type);
  if (f.status) qb = qb.where('status', 'in', f.status);
  const users = f.assignee_ids;
  if (users) {
    qb = qb.where('id', 'in', (eb) => eb.selectFrom('event_assignees').select('event_id').where('workspace_id', '=', f.ws).where('user_id', 'in', users));
  }
  return qb;
});

export async function listEvents(db: Kysely<DB>, workspaceId: number, q: EventQuery) {
  const filters: EventFilters = {
    ws: workspaceId,
    start_date: q.start_date,
    end_date: q.end_date,
    ends_on_or_after: q.ends_on_or_after,
    starts_on_or_before: q.starts_on_or_before,
    job_id: q.job_id,
    request_id: q.request_id,
    contact_id: q.contact_id,
    type: q.type,
    status: q.status ? csv(q.status) : undefined,
    assignee_ids: q.assignee_ids ? csv(q.assignee_ids).map((u) => u.toLowerCase()) : undefined,
  };
  const page = await list(db, filters, q);
  return {
    rows: page.rows.map((row) => Object.assign(eventCodec.decode(row, ASSIGNEES), { assignee_ids: (parseJson(row.assignees) ?? []).map((a) => a.user_id) })),
    pagination: page.pagination,
  };
}

/** The single GET shape (assignees named, the job as a reference), in one statement; undefined when absent. */
export async function findEventDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<EventDetail | undefined> {
  const d = dialectOf(db);
  const row = await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .select((eb) => [assigneesJson(eb, d).as('assignees'), documentRefJson(eb, d, 'events.job_id').as('job')])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const list: Assignee[] = parseJson(row.assignees) ?? [];
  return Object.assign(eventCodec.decode(row, DETAIL_COLUMNS), {
    customer_confirmed_at: row.customer_confirmed_at,
    assignee_ids: list.map((a) => a.user_id),
    assignees: list.filter((a) => a.member !== null).map((a) => ({ id: a.user_id, first_name: a.first_name, last_name: a.last_name })),
    job: parseJson(row.job),
  });
}
const ASSIGNEES = new Set(['assignees']);
const DETAIL_COLUMNS = new Set(['assignees', 'job']);

export async function insertEvent(db: Kysely<DB>, values: Insertable<EventsTable>) {
  return db
    .insertInto('events')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function updateEvent(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<EventsTable>) {
  const r = await db
    .updateTable('events')
    .set(values)
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
  const gone = Number(r.numDeletedRows) > 0;
  if (gone) await recordDeletions(db, workspaceId, 'events', [id]); // E13, in the delete's transaction
  return gone;
}

/** E21: the job and rule date of a generated visit (null for an event no rule made, or whose job is gone). */
export async function occurrenceOf(db: Kysely<DB>, workspaceId: number, id: number): Promise<{ job_id: number; occurrence_date: string } | null> {
  const row = await db.selectFrom('events').select(['job_id', 'occurrence_date']).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return row?.job_id && row.occurrence_date ? { job_id: row.job_id, occurrence_date: row.occurrence_date } : null;
}

/** F222: how many of a job's visits are still open (neither completed, cancelled nor missed), and the job's status; undefined: no such job. */
export async function jobVisitProgress(db: Kysely<DB>, workspaceId: number, jobId: number): Promise<{ status: string; open: number } | undefined> {
  const job = await db.selectFrom('jobs').select('status').where('workspace_id', '=', workspaceId).where('id', '=', jobId).executeTakeFirst();
  if (!job) return undefined;
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .where('status', 'not in', CLOSED_VISIT_STATUSES)
    .executeTakeFirstOrThrow();
  return { status: job.status, open: Number(row.n) };
}

/** F222: the statuses that close a visit: nothing more will be done on it. */
export const CLOSED_VISIT_STATUSES = ['completed', 'cancelled', 'missed'];
