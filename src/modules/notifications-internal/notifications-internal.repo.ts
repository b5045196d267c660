import type { Insertable, Kysely } from 'kysely';
import type { AppointmentRemindersTable, DB, InternalNotificationsTable } from '../../db/schema.ts';

/** The members among `userIds`, with their preferences (`notify.<name>`). */
export function membersWithPreferences(db: Kysely<DB>, workspaceId: number, userIds: string[]) {
  return db.selectFrom('users').select(['user_id', 'preferences']).where('workspace_id', '=', workspaceId).where('user_id', 'in', userIds).execute();
}

export async function membersWithRoles(db: Kysely<DB>, workspaceId: number, roles: readonly string[]): Promise<string[]> {
  const rows = await db.selectFrom('users').select('user_id').where('workspace_id', '=', workspaceId).where('role', 'in', roles).execute();
  return rows.map((r) => r.user_id);
}

export async function insertNotifications(db: Kysely<DB>, rows: Insertable<InternalNotificationsTable>[]): Promise<void> {
  if (rows.length) await db.insertInto('internal_notifications').values(rows).execute();
}

/** A user's notifications, newest first. */
export function inboxRows(db: Kysely<DB>, workspaceId: number, userId: string, unreadOnly: boolean) {
  let qb = db
    .selectFrom('internal_notifications')
    .select(['id', 'name', 'module_type', 'module_id', 'data', 'created_at', 'read_at'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId);
  if (unreadOnly) qb = qb.where('read_at', 'is', null);
  return qb.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function markReadRows(db: Kysely<DB>, workspaceId: number, userId: string, ids: number[], at: string): Promise<number> {
  if (!ids.length) return 0;
  const result = await db
    .updateTable('internal_notifications')
    .set({ read_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('id', 'in', ids)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Scheduled appointments starting on the local dates `from`..`to`, one row per assignee, by event id. */
export function appointmentAssignees(db: Kysely<DB>, workspaceId: number, from: string, to: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('event_assignees as a', (j) => j.onRef('a.workspace_id', '=', 'e.workspace_id').onRef('a.event_id', '=', 'e.id'))
    .select(['e.id', 'e.name', 'e.start_date', 'e.start_time', 'a.user_id'])
    .where('e.workspace_id', '=', workspaceId)
    .where('e.type', '=', 'appointment')
    .where('e.status', '=', 'scheduled')
    .where('e.start_date', '>=', from)
    .where('e.start_date', '<=', to)
    .orderBy('e.id')
    .execute();
}

/** Inserts the reminder pairs not yet stored; returns only the ones this call created. */
export function insertNewReminders(db: Kysely<DB>, rows: Insertable<AppointmentRemindersTable>[]) {
  return db
    .insertInto('appointment_reminders')
    .values(rows)
    .onConflict((oc) => oc.columns(['workspace_id', 'event_id', 'user_id']).doNothing())
    .returning(['event_id', 'user_id'])
    .execute();
}

/** One page of a user's notifications, newest first, with the total and the unread count (GET /me/notifications). */
export async function inboxPage(db: Kysely<DB>, workspaceId: number, userId: string, opts: { unreadOnly: boolean; page: number; perPage: number }) {
  const mine = db.selectFrom('internal_notifications').where('workspace_id', '=', workspaceId).where('user_id', '=', userId);
  const listed = opts.unreadOnly ? mine.where('read_at', 'is', null) : mine;
  const rows = await listed
    .select(['id', 'name', 'module_type', 'module_id', 'data', 'created_at', 'read_at'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.perPage)
    .offset((opts.page - 1) * opts.perPage)
    .execute();
  // One statement for both counts: the index (workspace_id, user_id, created_at, id) serves it.
  const counts = await mine
    .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.count<number | string>('id').filterWhere('read_at', 'is', null).as('unread')])
    .executeTakeFirstOrThrow();
  return { rows, total: Number(counts.total), unread: Number(counts.unread) };
}

/** Marks all of a user's unread notifications read; returns how many. */
export async function markAllReadRows(db: Kysely<DB>, workspaceId: number, userId: string, at: string): Promise<number> {
  const result = await db
    .updateTable('internal_notifications')
    .set({ read_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
