import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// Every API process caches live keys on PostgreSQL (src/http/auth.ts). This trigger
// announces each change of a key (revoked, its user removed, its workspace deleted)
// on a channel they all listen to; NOTIFY is delivered at commit, and not at all
// on rollback. SQLite needs nothing: there the lookup is not cached.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return;
  await sql`
    create function fieldwork_api_key_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('fieldwork_api_keys', old.token_hash);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger api_keys_changed after update of revoked_at, user_id, scopes, type, legacy, workspace_id, token_hash or delete on api_keys
    for each row
    execute function fieldwork_api_key_changed()`.execute(db);
}
