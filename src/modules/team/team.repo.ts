import type { ExpressionBuilder, Kysely } from 'kysely';
import { type ListParams, type ListSpec, listOf } from '../../db/list-query.ts';
import type { DB } from '../../db/schema.ts';

// Issue 22: team invites are members (`users` rows) who were sent a setup link
// and have used none yet (A66); the links are A1's `auth_links`.

const inviteSpec: ListSpec = {
  id: 'users.id',
  sort: { id: 'users.id', email: 'users.email', role: 'users.role', created_at: 'users.created_at', updated_at: 'users.updated_at' },
  search: ['users.email', 'users.first_name', 'users.last_name'],
};
export const INVITE_SORT = ['id', 'email', 'role', 'created_at'] as const;

/** The member's latest `team_invite` message, as a subquery of a `users` row. */
const latestInviteEmail = (eb: ExpressionBuilder<DB, 'users'>) =>
  eb
    .selectFrom('messages as m')
    .whereRef('m.workspace_id', '=', 'users.workspace_id')
    .where('m.module_type', '=', 'user')
    .whereRef('m.module_id', '=', 'users.id')
    .where('m.type', '=', 'team_invite')
    .orderBy('m.id', 'desc')
    .limit(1);

function pending(db: Kysely<DB>, workspaceId: number) {
  return db
    .selectFrom('users')
    .where('users.workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.and([
        eb.exists(eb.selectFrom('auth_links as l').select('l.id').whereRef('l.user_id', '=', 'users.id').where('l.kind', '=', 'setup')),
        eb.not(eb.exists(eb.selectFrom('auth_links as l').select('l.id').whereRef('l.user_id', '=', 'users.id').where('l.kind', '=', 'setup').where('l.used_at', 'is not', null))),
      ]),
    )
    .select((eb) => [
      'users.id',
      'users.user_id',
      'users.email',
      'users.role',
      'users.first_name',
      'users.last_name',
      'users.created_at',
      'users.updated_at',
      eb.selectFrom('auth_links as l').whereRef('l.user_id', '=', 'users.id').where('l.kind', '=', 'setup').select((e) => e.fn.max('l.created_at').as('m')).as('last_sent_at'),
      eb.selectFrom('auth_links as l').whereRef('l.user_id', '=', 'users.id').where('l.kind', '=', 'setup').select((e) => e.fn.max('l.expires_at').as('m')).as('expires_at'),
      // F333: what became of the latest invite email (the message log's status and error).
      latestInviteEmail(eb).select('m.status').as('email_status'),
      latestInviteEmail(eb).select('m.error').as('email_error'),
    ]);
}

/** GET /team/invites: the workspace's pending invites. */
const invites = listOf(inviteSpec, (db, f: { ws: number }) => pending(db, f.ws));

export function listInvites(db: Kysely<DB>, workspaceId: number, q: ListParams) {
  return invites(db, { ws: workspaceId }, q);
}

/** One pending invite (by users.id), or undefined: unknown, another workspace's, or already joined. */
export function findInvite(db: Kysely<DB>, workspaceId: number, id: number) {
  return pending(db, workspaceId).where('users.id', '=', id).executeTakeFirst();
}

/** Removes a membership: its sessions and links go by cascade (migration 0016). */
export async function deleteMember(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('users').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Revokes every live key of a member; returns their hashes (for this process's key cache). */
export async function revokeKeysOf(db: Kysely<DB>, workspaceId: number, userId: string, at: string): Promise<string[]> {
  const rows = await db
    .updateTable('api_keys')
    .set({ revoked_at: at, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('token_hash')
    .execute();
  return rows.map((r) => r.token_hash);
}
