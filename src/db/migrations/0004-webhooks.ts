import { type Kysely, sql } from 'kysely';
import { notNull, withId, workspaceRef } from './helpers.ts';

// Webhook subscriptions, their deliveries and every attempt (SPEC "Webhook
// events", D15-D17), and the lease columns that let workers claim outbox rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Leases (src/outbox/claim.ts): a row is held by `locked_by` until `locked_until`;
  // a worker that dies simply lets the lease run out and another claims it again.
  await db.schema.alterTable('outbox').addColumn('processed_at', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('locked_until', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('locked_by', 'text').execute();
  // Only unprocessed rows are indexed: the worker's scan stays as small as its backlog.
  await db.schema.createIndex('outbox_pending').on('outbox').columns(['workspace_id', 'id']).where(sql.ref('processed_at'), 'is', null).execute();

  await withId(db, db.schema.createTable('webhook_subscriptions'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('trigger_event', 'text', notNull)
    .addColumn('webhook_url', 'text', notNull)
    .addColumn('secret', 'text', notNull) // D15: needed in clear to sign; never returned after subscribe
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_triggered_at', 'text')
    .addColumn('deleted_at', 'text') // kept for the delivery log; gone from the API
    .execute();
  await db.schema.createIndex('webhook_subscriptions_event').on('webhook_subscriptions').columns(['workspace_id', 'trigger_event', 'id']).execute();

  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('subscription_id', 'integer', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('outbox_id', 'integer', (c) => c.notNull().references('outbox.id').onDelete('cascade'))
    .addColumn('event', 'text', notNull)
    .addColumn('webhook_id', 'text', notNull) // meta.webhook_id = X-Service-Delivery (D15): a UUID per delivery
    .addColumn('status', 'text', notNull) // pending | delivered | failed
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', notNull)
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addColumn('delivered_at', 'text')
    // A re-run fan-out (an outbox lease that ran out mid-way) never doubles a delivery.
    .addUniqueConstraint('webhook_deliveries_once', ['workspace_id', 'outbox_id', 'subscription_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['workspace_id', 'next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_subscription').on('webhook_deliveries').columns(['workspace_id', 'subscription_id', 'id']).execute();

  await withId(db, db.schema.createTable('webhook_attempts'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', notNull)
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', notNull)
    .addColumn('worker', 'text', notNull) // which worker made it (Worker.id)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['workspace_id', 'delivery_id', 'id']).execute();
}
