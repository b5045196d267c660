import type { Kysely } from 'kysely';
import { notNull, withId, workspaceRef } from './helpers.ts';

// APP.md A1: people and sessions. A person (`accounts`) is an email with one
// password; each workspace they belong to is a `users` row with that email (A10).
// Sessions and the setup/reset links are stored only as SHA-256 hashes of their
// tokens. A session names the membership it acts as, so removing that member
// (deleting the `users` row) ends it by cascade.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('accounts'))
    .addColumn('email', 'text', (c) => c.notNull().unique()) // lowercased, as users.email
    .addColumn('password_hash', 'text') // null until the person sets one through a setup link
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('sessions'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade')) // the membership acted as
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_seen_at', 'text', notNull) // idle expiry: SESSION_IDLE after this
    .addColumn('expires_at', 'text', notNull) // absolute expiry: created_at + SESSION_TTL
    .execute();
  await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  // Setup links (7 days) and password reset links (1 hour), single use.
  await withId(db, db.schema.createTable('auth_links'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull) // setup | reset
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', notNull)
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('auth_links_workspace_user').on('auth_links').columns(['workspace_id', 'user_id']).execute();

  // A person's memberships by email, before any workspace is known (sign-in).
  await db.schema.createIndex('users_email').on('users').column('email').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_email').execute();
  await db.schema.dropTable('auth_links').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('accounts').execute();
}
