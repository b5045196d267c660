import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { backend, buildTestApp, type TestApp } from './helpers.ts';

// docs/scaling.md "Past one PostgreSQL server": the schema stays ready to be
// distributed by workspace_id (Citus). Every tenant table carries a non-null
// workspace_id, and every secondary index a list or lookup uses leads with it.

/** Not distributed: global tables (reference tables, or outside the tenants altogether). */
// A1: a person (`accounts`) and their sessions span workspaces: a session moves between its person's memberships.
const GLOBAL_TABLES = new Set(['workspaces', 'service_secrets', 'kysely_migration', 'kysely_migration_lock', 'accounts', 'sessions']);

/**
 * SQLite's FTS5 trigram indexes of contacts and properties (migration 0009) and
 * their shadow tables: derived from the tenant rows by rowid, not tables of their
 * own. On PostgreSQL the same index is an expression index on the tenant table.
 */
const isSearchIndex = (table: string) => /^(contacts|properties)_search(_data|_idx|_docsize|_config)?$/.test(table);

/**
 * Indexes that do not lead with workspace_id, each with why. They serve no list
 * and no per-workspace lookup; docs/scaling.md says what each becomes under Citus.
 */
const EXEMPT_INDEXES: Record<string, string> = {
  // Keyed by table(columns): the names of unique constraints' indexes differ per dialect.
  // Foreign-key cascades of RETENTION pruning (0010); Citus: (workspace_id, delivery_id) / (workspace_id, outbox_id).
  'webhook_attempts(delivery_id)': 'cascade lookup of pruning',
  'webhook_deliveries(outbox_id)': 'cascade lookup of pruning',
  // E22: an invoice's delete frees its visits by the foreign key, which looks them up by invoice_id alone; Citus: (workspace_id, invoice_id).
  'events(invoice_id)': 'set-null lookup of an invoice delete',
  // Global uniqueness, to be rekeyed under Citus (docs/scaling.md "Keys that change").
  'users(user_id)': 'a user id is unique across workspaces; Citus: unique (workspace_id, user_id)',
  'api_keys(token_hash)': 'the key lookup before the workspace is known; Citus: (workspace_id, token_hash), the workspace taken from the token prefix',
  'hub_links(token_hash)': 'the hub link lookup before the workspace is known (E7); Citus: a reference lookup table, or the workspace hash in the token',
  'calendar_feeds(token_hash)': 'the calendar feed lookup before the workspace is known (E25); Citus: a reference lookup table, as hub links',
  'auth_links(token_hash)': 'the setup or reset link lookup before the workspace is known (A1); Citus: a reference lookup table, as hub links',
  'users(email)': "a person's memberships by email at sign-in, before any workspace is known (A1); Citus: a reference table of (email, workspace_id)",
  'jobs(quote_id)': 'one job per quote; Citus: unique (workspace_id, quote_id)',
  'stored_files(bucket, path)': 'one row per stored object; Citus: unique (workspace_id, bucket, path)',
  // Retention prunes expired records across workspaces; Citus: the same pass runs on every shard.
  'idempotency_keys(expires_at)': 'pruning by expiry; Citus: (workspace_id, expires_at), pruned per shard',
  // The worker's claims take the oldest due rows of all workspaces, in this order (0021, F186);
  // Citus: claims run per shard (docs/scaling.md "Worker claims"), each shard with the same index.
  'outbox(id)': "the worker's claim of unprocessed events, in id order",
  'webhook_deliveries(next_attempt_at)': "the worker's claim of due deliveries, in next_attempt_at order",
  'messages(next_attempt_at)': "the worker's claim of due messages, in next_attempt_at order",
  'imports(id)': "the worker's claim of queued and running imports (0030), in id order",
  'exports(id)': "the worker's claim of queued and running exports (0030), in id order",
};

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

interface IndexInfo {
  table: string;
  name: string;
  columns: string[];
  primary: boolean;
}

async function tables(): Promise<string[]> {
  if (backend === 'postgres') {
    const r = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(t.db);
    return r.rows.map((x) => x.name);
  }
  const r = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(t.db);
  return r.rows.map((x) => x.name);
}

async function workspaceColumn(table: string): Promise<{ notNull: boolean } | null> {
  if (backend === 'postgres') {
    const r = await sql<{ is_nullable: string }>`select is_nullable from information_schema.columns where table_schema = 'public' and table_name = ${table} and column_name = 'workspace_id'`.execute(t.db);
    return r.rows[0] ? { notNull: r.rows[0].is_nullable === 'NO' } : null;
  }
  const r = await sql<{ name: string; notnull: number }>`select name, "notnull" from pragma_table_info(${table})`.execute(t.db);
  const c = r.rows.find((x) => x.name === 'workspace_id');
  return c ? { notNull: c.notnull === 1 } : null;
}

async function indexes(table: string): Promise<IndexInfo[]> {
  if (backend === 'postgres') {
    const r = await sql<{ name: string; columns: string[]; primary: boolean }>`
      select i.relname as name, ix.indisprimary as primary,
        array(select a.attname from unnest(ix.indkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = ix.indrelid and a.attnum = k.n order by k.o)::text[] as columns
      from pg_index ix join pg_class i on i.oid = ix.indexrelid join pg_class c on c.oid = ix.indrelid
      where c.relname = ${table}`.execute(t.db);
    return r.rows.map((x) => ({ table, name: x.name, columns: x.columns, primary: x.primary }));
  }
  const list = await sql<{ name: string; origin: string }>`select name, origin from pragma_index_list(${table})`.execute(t.db);
  const out: IndexInfo[] = [];
  for (const ix of list.rows) {
    const cols = await sql<{ name: string }>`select name from pragma_index_info(${ix.name}) order by seqno`.execute(t.db);
    out.push({ table, name: ix.name, columns: cols.rows.map((c) => c.name), primary: ix.origin === 'pk' });
  }
  return out;
}

test('every tenant table has a non-null workspace_id', async () => {
  const missing: string[] = [];
  for (const table of await tables()) {
    if (GLOBAL_TABLES.has(table) || isSearchIndex(table)) continue;
    const col = await workspaceColumn(table);
    if (!col?.notNull) missing.push(`${table}: ${col ? 'nullable' : 'no'} workspace_id`);
  }
  assert.deepEqual(missing, [], 'add workspace_id, or list the table in GLOBAL_TABLES and docs/scaling.md');
});

test('every secondary index of a tenant table leads with workspace_id (or is listed as exempt with its reason)', async () => {
  const wrong: string[] = [];
  for (const table of await tables()) {
    if (GLOBAL_TABLES.has(table) || isSearchIndex(table)) continue;
    for (const ix of await indexes(table)) {
      // Primary keys are the bare id today; docs/scaling.md: (workspace_id, id) under Citus.
      if (ix.primary || ix.columns.length === 0) continue;
      if (ix.columns[0] === 'workspace_id' || EXEMPT_INDEXES[`${table}(${ix.columns.join(', ')})`]) continue;
      wrong.push(`${table}.${ix.name} (${ix.columns.join(', ')})`);
    }
  }
  assert.deepEqual(wrong, [], 'lead the index with workspace_id, or exempt it with a reason (docs/scaling.md)');
});
