import type { Kysely } from 'kysely';

// A document list filtered by status (the pipeline's "awaiting response", "overdue", ...)
// is read in D1 order: newest first. With (workspace_id, status) the database either walked
// the creation-order index and skipped every newer document in another status (a workspace
// whose newest 16,000 quotes were drafts answered "awaiting response" at 33 requests a
// second), or sorted the whole status. (workspace_id, status, created_at, id) answers the
// filter, the order and the page from one index range; Home's counts by status read its prefix.
const TABLES = ['requests', 'quotes', 'jobs', 'invoices'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.createIndex(`${table}_workspace_status_created`).on(table).columns(['workspace_id', 'status', 'created_at', 'id']).execute();
    await db.schema.dropIndex(`${table}_workspace_status`).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.createIndex(`${table}_workspace_status`).on(table).columns(['workspace_id', 'status']).execute();
    await db.schema.dropIndex(`${table}_workspace_status_created`).execute();
  }
}
