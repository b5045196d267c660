import type { Kysely } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import type { Preferences } from '../users/users.service.ts';
import { findWorkspace, type INTERNAL_NOTIFICATIONS, settingsOf } from '../workspace/workspace.service.ts';
import { inboxPage, inboxRows, insertNotifications, markAllReadRows, markReadRows, membersWithPreferences, membersWithRoles } from './notifications-internal.repo.ts';

// SPEC "Internal notifications", D22: team-facing notifications, stored one row per
// recipient user and read with `fieldwork inbox`.

// The names live with the settings that switch them (`internal.<name>`, `notify.<name>`).
export type InternalNotification = (typeof INTERNAL_NOTIFICATIONS)[number];

/** The entity a notification is about (a quote, an event, ...), or null. */
export interface NotificationModule {
  type: string;
  id: number;
}

/**
 * Stores `name` for each recipient, inside the caller's transaction, unless the
 * workspace turned it off (`internal.<name>=false`, `fieldwork workspace set`) or
 * the user did (`notify.<name>=false`, `fieldwork user set`). Both default to on.
 * Recipients that are not members of the workspace are skipped; duplicates count
 * once. Returns the user UUIDs actually notified.
 */
export async function notifyUsers(
  trx: Kysely<DB>,
  workspaceId: number,
  name: InternalNotification,
  recipients: readonly (string | null | undefined)[],
  module: NotificationModule | null,
  data: Record<string, unknown>,
): Promise<string[]> {
  const wanted = [...new Set(recipients.filter((r): r is string => Boolean(r)))];
  if (!wanted.length) return [];
  const workspace = await findWorkspace(trx, workspaceId);
  if (!workspace || settingsOf(workspace)[`internal.${name}`] === false) return [];
  const users = await membersWithPreferences(trx, workspaceId, wanted);
  // users.service stores `notify.<name>` as `<name>` in the preferences object.
  const notified = users.filter((u) => fromJson<Preferences>(u.preferences)?.[name] !== false).map((u) => u.user_id);
  if (!notified.length) return [];
  const at = now();
  await insertNotifications(
    trx,
    notified.map((userId) => ({
      workspace_id: workspaceId,
      user_id: userId,
      name,
      module_type: module?.type ?? null,
      module_id: module?.id ?? null,
      data: toJson(data),
      created_at: at,
      read_at: null,
    })),
  );
  return notified;
}

/** SPEC "workspace admins and managers": an owner holds every admin right, so owners count as admins. */
export const ADMINS = ['owner', 'admin'] as const;
export const ADMINS_AND_MANAGERS = ['owner', 'admin', 'manager'] as const;

/** `notifyUsers` for every member holding one of `roles`. */
export async function notifyRoles(
  trx: Kysely<DB>,
  workspaceId: number,
  name: InternalNotification,
  roles: readonly string[],
  module: NotificationModule | null,
  data: Record<string, unknown>,
): Promise<string[]> {
  return notifyUsers(trx, workspaceId, name, await membersWithRoles(trx, workspaceId, roles), module, data);
}

export interface InboxItem {
  id: number;
  name: string;
  module_type: string | null;
  module_id: number | null;
  data: unknown;
  created_at: string;
  read_at: string | null;
}

/** docs/operator.md `fieldwork inbox`: a user's notifications, newest first. */
export async function listInbox(db: Kysely<DB>, workspaceId: number, userId: string, opts: { unread?: boolean } = {}): Promise<InboxItem[]> {
  const rows = await inboxRows(db, workspaceId, userId, Boolean(opts.unread));
  return rows.map((r) => ({ ...r, data: fromJson(r.data) }));
}

/** Marks notifications read (`fieldwork inbox --mark-read`); returns the time written. */
export async function markRead(db: Kysely<DB>, workspaceId: number, userId: string, ids: number[]): Promise<string> {
  const at = now();
  await markReadRows(db, workspaceId, userId, ids, at);
  return at;
}

/** GET /api/v1/me/notifications: one page of the caller's notifications and how many are unread. */
export async function inboxOf(db: Kysely<DB>, auth: { workspaceId: number; userId: string }, q: { unread?: boolean; page?: number; per_page?: number }) {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 25;
  const { rows, total, unread } = await inboxPage(db, auth.workspaceId, auth.userId, { unreadOnly: Boolean(q.unread), page, perPage });
  const listed = q.unread ? unread : total;
  return {
    data: rows.map((r) => ({ ...r, data: fromJson(r.data) ?? {} })),
    pagination: { page, per_page: perPage, total_pages: Math.ceil(listed / perPage) },
    meta: { unread_count: unread },
  };
}

/**
 * POST /api/v1/me/notifications/read: the caller's notifications `ids` (all unread ones
 * when omitted) marked read. Ids that are not the caller's are passed over, like ids that
 * do not exist: nobody learns of another person's notifications.
 */
export async function markInboxRead(db: Kysely<DB>, auth: { workspaceId: number; userId: string }, ids: number[] | undefined) {
  const at = now();
  const marked = ids === undefined ? await markAllReadRows(db, auth.workspaceId, auth.userId, at) : await markReadRows(db, auth.workspaceId, auth.userId, [...new Set(ids)], at);
  const { unread } = await inboxPage(db, auth.workspaceId, auth.userId, { unreadOnly: true, page: 1, perPage: 1 });
  return { marked, unread_count: unread };
}
