import type { Kysely } from 'kysely';
import { notNull, workspaceRef } from './helpers.ts';

// E11: one row per (API key, Idempotency-Key). Claimed as `running` with a lease
// before the route runs; set to `done` with the exact response in the same
// transaction as the route's effect, so a crash leaves the effect with its
// response or neither. Numbered 0012 so concurrent 0009..0011 do not clash.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('key_id', 'integer', notNull) // api_keys.id: keys are per API key (E11)
    .addColumn('idem_key', 'text', notNull)
    .addColumn('method', 'text', notNull)
    .addColumn('path', 'text', notNull) // the URL as sent, query string included
    .addColumn('body_hash', 'text', notNull) // SHA-256 of the raw body; `multipart` for uploads
    .addColumn('state', 'text', notNull) // running | done
    .addColumn('status', 'integer')
    .addColumn('response', 'text') // the body bytes as sent
    .addColumn('locked_by', 'text', notNull) // the request holding the key (a random token)
    .addColumn('locked_until', 'text', notNull) // lease: a `running` row past it was left by a dead process
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull) // created_at + IDEMPOTENCY_TTL; an expired row counts as absent
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
}
