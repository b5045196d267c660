import type { Kysely } from 'kysely';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

const byHash = prepared({ hash: 'string' }, (db, p) =>
  db.selectFrom('api_keys').select(['id', 'workspace_id', 'user_id', 'scopes', 'type', 'legacy', 'revoked_at']).where('token_hash', '=', p.hash),
);

/** The key a bearer token names, by the token's hash (the one lookup of authentication). */
export async function findKeyByHash(db: Kysely<DB>, tokenHash: string) {
  return (await byHash(db, { hash: tokenHash }))[0];
}

/** Records a use unless one was recorded since `cutoff` (by this or another process). */
export async function touchKey(db: Kysely<DB>, keyId: number, at: string, cutoff: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', cutoff)]))
    .execute();
}

/** PostgreSQL channel on which a trigger names the hash of every changed or deleted key (migration 0008). */
export const KEY_CHANGES_CHANNEL = 'fieldwork_api_keys';
