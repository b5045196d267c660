import type { Kysely } from 'kysely';
import { jsonType, notNull, withId, workspaceRef } from './helpers.ts';

// EXTENSIONS E7, E8: the customer hub. A link is stored only as the SHA-256 of
// its token (as API keys are), looked up by that hash before the workspace is
// known; revoking deletes the contact's rows. A quote keeps the customer's
// approval (signature, message, time) and its status changes who made them; an
// event keeps the customer's confirmation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('hub_links'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('contact_id', 'integer', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('hub_links_workspace_contact').on('hub_links').columns(['workspace_id', 'contact_id']).execute();

  await db.schema.alterTable('quotes').addColumn('approval', jsonType(db)).execute();
  // A status change the customer made in the hub (approve, request changes, decline).
  await db.schema.alterTable('quote_status_changes').addColumn('by_customer', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('events').addColumn('customer_confirmed_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('customer_confirmed_at').execute();
  await db.schema.alterTable('quote_status_changes').dropColumn('by_customer').execute();
  await db.schema.alterTable('quotes').dropColumn('approval').execute();
  await db.schema.dropTable('hub_links').execute();
}
