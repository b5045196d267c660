import { type Kysely, sql } from 'kysely';
import { notNull, withId, workspaceRef } from './helpers.ts';

// Customer notifications (SPEC "Notifications"): the message log, which is also
// the queue the worker drains, and the bookkeeping that keeps the daily
// `appointments_soon` run (D22) to once a day and once per event and user.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per customer email or SMS, sent or not (docs/operator.md `fieldwork messages`).
  // Rendered when queued, so the log shows what the customer was sent.
  await withId(db, db.schema.createTable('messages'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('channel', 'text', notNull) // email | sms
    .addColumn('type', 'text', notNull) // quote_to_customer | invoice_to_customer | appointment_reminder
    .addColumn('module_type', 'text', notNull) // quote | invoice | event
    .addColumn('module_id', 'integer', notNull)
    .addColumn('contact_id', 'integer') // no foreign key: the log outlives a deleted contact
    .addColumn('recipient', 'text', notNull) // email address or phone number
    .addColumn('subject', 'text')
    .addColumn('body_text', 'text', notNull)
    .addColumn('body_html', 'text')
    .addColumn('status', 'text', notNull) // queued | sent | not_sent | failed
    .addColumn('error', 'text') // why it was not sent, or the last failure
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('message_id', 'text', notNull) // stable across attempts: the email's Message-ID
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('messages_log').on('messages').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('messages_due').on('messages').columns(['workspace_id', 'next_attempt_at']).where(sql.ref('status'), '=', 'queued').execute();

  // A daily job's run for one workspace and local date: inserted in the run's own
  // transaction, so a run happens once (several workers, restarts) or not at all.
  await db.schema
    .createTable('scheduled_runs')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('job', 'text', notNull)
    .addColumn('run_date', 'text', notNull) // YYYY-MM-DD in the workspace's time zone
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('scheduled_runs_pk', ['workspace_id', 'job', 'run_date'])
    .execute();

  // D22: `appointments_soon` once per event and user, whatever the runs.
  await db.schema
    .createTable('appointment_reminders')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('user_id', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('appointment_reminders_pk', ['workspace_id', 'event_id', 'user_id'])
    .execute();
}
