import { type CreateIndexBuilder, type Kysely, sql } from 'kysely';

// The worker claims the due rows of three queues, oldest first, every 200 ms and in a
// loop while work comes in (claim.ts). Their partial indexes began with workspace_id,
// which cannot give a claim's order across workspaces:
// - outbox: SQLite walked the whole outbox in id order through every processed row
//   first, 55 ms a claim on the event loop at 43,000 rows (retention keeps days of them);
// - webhook deliveries and messages: every pending row was read and sorted, due or not
//   (a dead endpoint's retries): 0.93 ms a claim at 20,000 pending deliveries.
// Each index now holds only what is left to do, in the claim's order: the outbox's by
// id, the others' by next_attempt_at, read up to now. It also serves the counts of
// outbox/stats.ts; nothing else read these rows by workspace.
// Narrows an index to its queue's due rows (a partial index).
type DueRows = (index: CreateIndexBuilder) => CreateIndexBuilder;
const INDEXES: { table: string; name: string; old: string; column: string; due: DueRows }[] = [
  { table: 'outbox', name: 'outbox_unprocessed', old: 'outbox_pending', column: 'id', due: (i) => i.where(sql.ref('processed_at'), 'is', null) },
  { table: 'webhook_deliveries', name: 'webhook_deliveries_next', old: 'webhook_deliveries_due', column: 'next_attempt_at', due: (i) => i.where(sql.ref('status'), '=', 'pending') },
  { table: 'messages', name: 'messages_next', old: 'messages_due', column: 'next_attempt_at', due: (i) => i.where(sql.ref('status'), '=', 'queued') },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const i of INDEXES) {
    await i.due(db.schema.createIndex(i.name).on(i.table).column(i.column)).execute();
    await db.schema.dropIndex(i.old).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const i of INDEXES) {
    await i.due(db.schema.createIndex(i.old).on(i.table).columns(['workspace_id', i.column])).execute();
    await db.schema.dropIndex(i.name).execute();
  }
}
