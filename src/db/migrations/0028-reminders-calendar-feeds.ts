import type { Kysely } from 'kysely';
import { notNull, withId, workspaceRef } from './helpers.ts';

// EXTENSIONS E24, E25. `customer_reminders` is the "once" of the automatic reminders:
// one row per document (or visit), step and anchor (the day or instant the step counts
// from), inserted in the transaction that queues the message (F271). A calendar feed is
// stored as the SHA-256 of its token, one per membership, gone with the member (F275);
// `calendar_sequences` keeps each visit's SEQUENCE and what it was computed from (F276).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_reminders')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('type', 'text', notNull) // quote_follow_up, invoice_reminder, appointment_reminder
    .addColumn('document_id', 'integer', notNull)
    .addColumn('step', 'integer', notNull) // days after sending, days from the due date, hours before the start
    .addColumn('anchor', 'text', notNull) // the sent date, the due date or the start instant it counted from
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('customer_reminders_pk', ['workspace_id', 'type', 'document_id', 'step', 'anchor'])
    .execute();
  // A quote's last send, read by the follow-ups' daily run: its messages by record.
  await db.schema.createIndex('messages_module').on('messages').columns(['workspace_id', 'module_type', 'module_id']).execute();

  await withId(db, db.schema.createTable('calendar_feeds'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('member_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('calendar_feeds_workspace_member').on('calendar_feeds').columns(['workspace_id', 'member_id']).unique().execute();

  await db.schema
    .createTable('calendar_sequences')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', notNull)
    .addColumn('fingerprint', 'text', notNull)
    .addPrimaryKeyConstraint('calendar_sequences_pk', ['workspace_id', 'event_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('calendar_sequences').execute();
  await db.schema.dropTable('calendar_feeds').execute();
  await db.schema.dropIndex('messages_module').execute();
  await db.schema.dropTable('customer_reminders').execute();
}
