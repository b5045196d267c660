import type { Kysely } from 'kysely';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

// A1 sessions: the queries authentication runs on every request made with a
// session cookie (src/http/sessions.ts), and the few the accounts module shares.

const byHash = prepared({ hash: 'string' }, (db, p) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    // The membership still belongs to this person: a users row whose email changed is someone else's.
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.email', '=', 'a.email'))
    .select(['s.id', 's.account_id', 's.last_seen_at', 's.expires_at', 'a.email', 'u.id as member_id', 'u.workspace_id', 'u.user_id', 'u.role'])
    .where('s.token_hash', '=', p.hash),
);

/** The session a cookie's token names, with the membership it acts as. */
export async function findSessionByHash(db: Kysely<DB>, tokenHash: string) {
  return (await byHash(db, { hash: tokenHash }))[0];
}
export type SessionRow = NonNullable<Awaited<ReturnType<typeof findSessionByHash>>>;

/** Idle expiry counts from the last recorded request; recorded at most every so often (src/http/sessions.ts). */
export async function touchSession(db: Kysely<DB>, id: number, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).where('last_seen_at', '<', at).execute();
}

export async function deleteSession(db: Kysely<DB>, id: number): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}
