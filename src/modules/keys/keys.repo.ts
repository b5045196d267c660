import type { Insertable, Kysely } from 'kysely';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { ApiKeysTable, DB } from '../../db/schema.ts';
import type { KeyQuery } from './keys.schemas.ts';

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
export async function revokeKeyRow(db: Kysely<DB>, keyId: number, at: string, workspaceId?: number) {
  let update = db.updateTable('api_keys').set({ revoked_at: at, updated_at: at }).where('id', '=', keyId).where('revoked_at', 'is', null);
  let select = db.selectFrom('api_keys').select(['id', 'revoked_at', 'token_hash']).where('id', '=', keyId);
  if (workspaceId !== undefined) {
    update = update.where('workspace_id', '=', workspaceId);
    select = select.where('workspace_id', '=', workspaceId);
  }
  await update.execute();
  return select.executeTakeFirst();
}

const KEY_COLUMNS = ['id', 'type', 'scopes', 'user_id', 'name', 'created_at', 'updated_at', 'last_used_at', 'revoked_at'] as const;

const listSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', created_at: 'created_at', updated_at: 'updated_at', last_used_at: 'last_used_at', name: 'name' },
  search: ['name'],
};

/** GET /keys: a page of a workspace's keys (never a token or its hash). */
const list = listOf(listSpec, (db, f: { ws: number; type?: string; revoked?: boolean }) => {
  let qb = db.selectFrom('api_keys').select(KEY_COLUMNS).where('workspace_id', '=', f.ws);
  if (f.type) qb = qb.where('type', '=', f.type);
  if (f.revoked !== undefined) qb = qb.where('revoked_at', f.revoked ? 'is not' : 'is', null);
  return qb;
});

export function listKeyPage(db: Kysely<DB>, workspaceId: number, q: KeyQuery) {
  return list(db, { ws: workspaceId, type: q.type, revoked: q.revoked }, q);
}

/** One key of a workspace, as the list shows it. */
export function findKeyRow(db: Kysely<DB>, workspaceId: number, keyId: number) {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', keyId)
    .executeTakeFirst();
}
