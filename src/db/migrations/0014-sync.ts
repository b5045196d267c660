import { type Kysely, sql } from 'kysely';
import { isSqlite, withId, workspaceRef } from './helpers.ts';

// EXTENSIONS E12, E13: the sync filters read `updated_at` ranges per workspace, so
// the listed tables get `(workspace_id, updated_at, id)` (the id is the order's
// tie-break, D1); the deletions feed is a table of its own, one row per deleted
// record, written in the delete's transaction and pruned after 90 days (retention).
const UPDATED_AT_TABLES = [
  'contacts',
  'properties',
  'requests',
  'quotes',
  'jobs',
  'invoices',
  'events',
  'time_entries',
  'services',
  'tax_rates',
  'quote_templates',
  'upload_links',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of UPDATED_AT_TABLES) {
    await db.schema.createIndex(`${table}_workspace_updated`).on(table).columns(['workspace_id', 'updated_at', 'id']).execute();
  }
  await withId(db, db.schema.createTable('deletions'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'integer', (c) => c.notNull())
    // The read scope a key needs to see the entry (an upload's is its parent's, SPEC Uploads 4).
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deletions_workspace_deleted').on('deletions').columns(['workspace_id', 'deleted_at', 'id']).execute();
  if (isSqlite(db)) await sqliteStats(db);
}

/**
 * SQLite: 0009 gave the (workspace_id, created_at, id) indexes of contacts and
 * properties statistics saying "a workspace is large"; an index without any would
 * be guessed far more selective and picked for every list (then sorted). The new
 * (workspace_id, updated_at, id) indexes have the same shape: they get the same
 * statistics (real ones, if an ANALYZE made them), and the planner reloads them.
 */
async function sqliteStats(db: Kysely<unknown>): Promise<void> {
  const stat1 = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (!stat1.rows[0]?.n) return;
  for (const table of ['contacts', 'properties']) {
    await sql`delete from sqlite_stat1 where idx = ${`${table}_workspace_updated`}`.execute(db);
    await sql`insert into sqlite_stat1 (tbl, idx, stat)
      select tbl, ${`${table}_workspace_updated`}, stat from sqlite_stat1 where idx = ${`${table}_workspace_created`}`.execute(db);
  }
  await sql`analyze sqlite_schema`.execute(db); // reloads them
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deletions').execute();
  for (const table of UPDATED_AT_TABLES) await db.schema.dropIndex(`${table}_workspace_updated`).execute();
}
