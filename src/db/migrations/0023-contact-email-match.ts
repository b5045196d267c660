import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// A website form (and the internal request API) finds the workspace's oldest contact with
// the submitted email, case-insensitively (SPEC Internal request creation 1):
// `lower(email) = ? order by id limit 1`. The (workspace_id, email) index cannot answer
// lower(email), so both databases walked the workspace's contacts in id order up to the
// first match: 10 ms and more a submission once a workspace had 100,000 contacts, and
// the form's answers timed out under load. This index answers it in one seek, in id order.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index contacts_workspace_lower_email on contacts (workspace_id, lower(email), id)`.execute(db);
  if (isSqlite(db)) await sqliteStats(db);
}

/**
 * SQLite: 0009 gave contacts' indexes statistics saying "a workspace is large"; an index
 * without any is guessed far more selective, and the planner picked this one for every
 * contact list (then sorted the workspace's contacts: 100 pages a second instead of
 * 3,600 at 20,000 contacts). It gets (workspace_id, email)'s statistics (real ones, if an
 * ANALYZE made them) and one row per id, and the planner reloads them.
 */
async function sqliteStats(db: Kysely<unknown>): Promise<void> {
  const stat1 = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (!stat1.rows[0]?.n) return;
  await sql`delete from sqlite_stat1 where idx = 'contacts_workspace_lower_email'`.execute(db);
  await sql`insert into sqlite_stat1 (tbl, idx, stat)
    select tbl, 'contacts_workspace_lower_email', stat || ' 1' from sqlite_stat1 where idx = 'contacts_workspace_email'`.execute(db);
  await sql`analyze sqlite_schema`.execute(db); // reloads them
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_workspace_lower_email').execute();
}
