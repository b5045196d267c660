import type { Kysely } from 'kysely';

// RETENTION pruning (src/outbox/retention.ts) deletes delivered webhook deliveries
// and fanned-out outbox rows in batches. Each delete cascades through a foreign key
// (outbox -> webhook_deliveries -> webhook_attempts), and the database looks the
// children up by the bare foreign-key column: the existing indexes lead with
// workspace_id, so without these every deleted row would scan the child table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_attempts_delivery_fk').on('webhook_attempts').column('delivery_id').execute();
  await db.schema.createIndex('webhook_deliveries_outbox_fk').on('webhook_deliveries').column('outbox_id').execute();
}
