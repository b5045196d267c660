import type { Insertable, Kysely } from 'kysely';
import type { AuthLinksTable, DB, SessionsTable } from '../../db/schema.ts';

// A1: people, their sessions and their setup and reset links. A person's
// memberships are the `users` rows with their email (A10).

const WORKSPACE_COLUMNS = [
  'w.id as workspace_id',
  'w.name as workspace_name',
  'w.slug as workspace_slug',
  'w.industry as workspace_industry',
  'w.industry_key as workspace_industry_key',
  'w.country as workspace_country',
  'w.currency as workspace_currency',
  'w.timezone as workspace_timezone',
  'w.about as workspace_about',
] as const;
const MEMBER_COLUMNS = ['u.id as member_id', 'u.user_id', 'u.email', 'u.first_name', 'u.last_name', 'u.role'] as const;

/**
 * Sign-in's one read: the account's password hash and every membership with its
 * workspace, oldest first. An unknown email gives no rows; an account with no
 * membership one row of nulls.
 */
export function accountWithMemberships(db: Kysely<DB>, email: string) {
  return db
    .selectFrom('accounts as a')
    .leftJoin('users as u', 'u.email', 'a.email')
    .leftJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['a.id as account_id', 'a.password_hash', ...MEMBER_COLUMNS, ...WORKSPACE_COLUMNS])
    .where('a.email', '=', email)
    .orderBy('u.id')
    .execute();
}

/**
 * The memberships of the person who is `userId` in `workspaceId`, with their
 * workspaces, oldest first; `onlyThere` keeps the one of that workspace (a key's /me).
 */
export function membershipsOf(db: Kysely<DB>, workspaceId: number, userId: string, onlyThere: boolean) {
  let q = db
    .selectFrom('users as me')
    .innerJoin('users as u', 'u.email', 'me.email')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select([...MEMBER_COLUMNS, ...WORKSPACE_COLUMNS])
    .where('me.workspace_id', '=', workspaceId)
    .where('me.user_id', '=', userId);
  if (onlyThere) q = q.where('u.workspace_id', '=', workspaceId);
  return q.orderBy('u.id').execute();
}
export type MembershipRow = Awaited<ReturnType<typeof membershipsOf>>[number];

export function findAccount(db: Kysely<DB>, email: string) {
  return db.selectFrom('accounts').select(['id', 'email', 'password_hash']).where('email', '=', email).executeTakeFirst();
}

/** The person's account with this password; created when they have none yet (setup, reset). */
export async function savePassword(db: Kysely<DB>, email: string, passwordHash: string, at: string): Promise<number> {
  const row = await db
    .insertInto('accounts')
    .values({ email, password_hash: passwordHash, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('email').doUpdateSet({ password_hash: passwordHash, updated_at: at }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertSession(db: Kysely<DB>, values: Insertable<SessionsTable>): Promise<number> {
  return (await db.insertInto('sessions').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

/** Ends the person's sessions, all of them or all but one. */
export async function deleteSessionsOf(db: Kysely<DB>, accountId: number, exceptId?: number): Promise<void> {
  let q = db.deleteFrom('sessions').where('account_id', '=', accountId);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  await q.execute();
}

/** Drops the person's sessions that ran out (absolute or idle), so they do not pile up. */
export async function pruneSessionsOf(db: Kysely<DB>, accountId: number, now: string, idleCutoff: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleCutoff)]))
    .execute();
}

export async function moveSession(db: Kysely<DB>, sessionId: number, memberId: number): Promise<void> {
  await db.updateTable('sessions').set({ user_id: memberId }).where('id', '=', sessionId).execute();
}

export async function insertLink(db: Kysely<DB>, values: Insertable<AuthLinksTable>): Promise<void> {
  await db.insertInto('auth_links').values(values).execute();
}

/** A link by its token's hash, with its member, workspace and the member's account (if any). */
export function findLink(db: Kysely<DB>, tokenHash: string, kind: string) {
  return db
    .selectFrom('auth_links as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .innerJoin('workspaces as w', 'w.id', 'l.workspace_id')
    .leftJoin('accounts as a', 'a.email', 'u.email')
    .select(['l.id', 'l.expires_at', 'l.used_at', 'a.id as account_id', 'a.password_hash', ...MEMBER_COLUMNS, ...WORKSPACE_COLUMNS])
    .where('l.token_hash', '=', tokenHash)
    .where('l.kind', '=', kind)
    .executeTakeFirst();
}

/** Uses a link: true for the one request that got it first. The member's other links of that kind go with it. */
export async function useLink(db: Kysely<DB>, workspaceId: number, linkId: number, memberId: number, kind: string, at: string): Promise<boolean> {
  const r = await db.updateTable('auth_links').set({ used_at: at }).where('workspace_id', '=', workspaceId).where('id', '=', linkId).where('used_at', 'is', null).executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  await db.updateTable('auth_links').set({ used_at: at }).where('workspace_id', '=', workspaceId).where('user_id', '=', memberId).where('kind', '=', kind).where('used_at', 'is', null).execute();
  return true;
}

export async function setMemberNames(db: Kysely<DB>, workspaceId: number, memberId: number, firstName: string, lastName: string, at: string): Promise<void> {
  await db.updateTable('users').set({ first_name: firstName, last_name: lastName, updated_at: at }).where('workspace_id', '=', workspaceId).where('id', '=', memberId).execute();
}

/** The person's oldest membership and its workspace's name: the one a reset email names. */
export function oldestMembership(db: Kysely<DB>, email: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id', 'u.workspace_id', 'u.first_name', 'w.name as workspace_name'])
    .where('u.email', '=', email)
    .orderBy('u.id')
    .executeTakeFirst();
}

/** A member by UUID with their workspace's name: what a setup email says. */
export function memberWithWorkspace(db: Kysely<DB>, workspaceId: number, userId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id', 'u.email', 'u.first_name', 'w.name as workspace_name'])
    .where('u.workspace_id', '=', workspaceId)
    .where('u.user_id', '=', userId)
    .executeTakeFirst();
}
