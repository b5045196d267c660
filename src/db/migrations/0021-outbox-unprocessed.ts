import { sql, type Kysely } from 'kysely';

// The worker claims the oldest unprocessed outbox rows (claim.ts: `processed_at is null
// ... order by id limit 200`) every 200 ms and in a loop while writes come in. The
// partial index (workspace_id, id) could not give that order, so SQLite walked the
// outbox by id through every processed row first: 55 ms a claim, on the event loop, at
// 43,000 rows (retention keeps days of them). Ordered by id alone, the index holds only
// what is left to do and the claim reads just that (0.02 ms). It also serves the count
// of pending rows (outbox/stats.ts); nothing reads the pending rows by workspace.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('outbox_unprocessed').on('outbox').column('id').where(sql.ref('processed_at'), 'is', null).execute();
  await db.schema.dropIndex('outbox_pending').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('outbox_pending').on('outbox').columns(['workspace_id', 'id']).where(sql.ref('processed_at'), 'is', null).execute();
  await db.schema.dropIndex('outbox_unprocessed').execute();
}
