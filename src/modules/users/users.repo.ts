import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import { type ListParams, type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import type { DB, UsersTable } from '../../db/schema.ts';

export type UserRow = Selectable<UsersTable>;

export const USER_SORT = ['first_name', 'last_name', 'email', 'role', 'job_title', 'created_at', 'updated_at', 'name'] as const;
const listSpec: ListSpec = {
  id: 'id',
  // `name` is an alias of first_name (SPEC list filters).
  sort: { ...sortByName(USER_SORT), name: 'first_name' },
  search: ['first_name', 'last_name', 'email', 'phone', sql`coalesce(first_name, '') || ' ' || coalesce(last_name, '')`],
};

const list = listOf(listSpec, (db, f: { ws: number }) => db.selectFrom('users').selectAll().where('workspace_id', '=', f.ws));

export function listUsers(db: Kysely<DB>, workspaceId: number, q: ListParams) {
  return list(db, { ws: workspaceId }, q);
}

export async function findUser(db: Kysely<DB>, workspaceId: number, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
}

export async function emailTaken(db: Kysely<DB>, workspaceId: number, email: string): Promise<boolean> {
  return !!(await db.selectFrom('users').select('id').where('workspace_id', '=', workspaceId).where('email', '=', email).executeTakeFirst());
}

/** The workspace's first owner: the default user of a new key (OPERATOR.md). */
export async function firstOwner(db: Kysely<DB>, workspaceId: number): Promise<string | undefined> {
  const r = await db.selectFrom('users').select('user_id').where('workspace_id', '=', workspaceId).where('role', '=', 'owner').orderBy('id').executeTakeFirst();
  return r?.user_id;
}

export function insertUser(db: Kysely<DB>, values: Insertable<UsersTable>): Promise<UserRow> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateUser(db: Kysely<DB>, id: number, values: Updateable<UsersTable>): Promise<UserRow> {
  return db.updateTable('users').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Owners of a workspace, counted up to 2 (enough to know whether one is the last). */
export async function countOwners(db: Kysely<DB>, workspaceId: number): Promise<number> {
  const rows = await db.selectFrom('users').select('id').where('workspace_id', '=', workspaceId).where('role', '=', 'owner').limit(2).execute();
  return rows.length;
}
