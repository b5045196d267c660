import type { Insertable, Kysely } from 'kysely';
import type { ApiKeysTable, DB } from '../../db/schema.ts';

export async function insertKey(db: Kysely<DB>, values: Insertable<ApiKeysTable>): Promise<number> {
  const row = await db.insertInto('api_keys').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export function listKeyRows(db: Kysely<DB>, workspaceId: number) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'type', 'scopes', 'user_id', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
}

/** Revoking twice keeps the first time. Returns the key's revocation time, or undefined without such a key. */
export async function revokeKeyRow(db: Kysely<DB>, keyId: number, at: string) {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).where('revoked_at', 'is', null).execute();
  return db.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', keyId).executeTakeFirst();
}
