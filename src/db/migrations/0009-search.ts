import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// Lists at 1,000,000 rows (src/db/list-query.ts):
//
// 1. Search. `contacts_search(rowid, doc)` is a relation both dialects can query with
//    one `doc like '%term%'` that an index serves: on SQLite an FTS5 table with the
//    trigram tokenizer (external content: the text stays in `contacts`, read through a
//    view), on PostgreSQL a view over an expression that a GIN pg_trgm index covers.
//    `doc` is "first last<US>email<US>phone" (US = char 31, the unit separator), so
//    one pattern covers first name, last name, full name, email and phone; the
//    builder still re-checks each field with the original predicate, so the index
//    only narrows candidates and the SPEC semantics do not depend on it. Triggers
//    (SQLite) and the expression index (PostgreSQL) update it in the writing
//    transaction.
//
// 2. Counts. `row_counts` holds per-workspace row counts of contacts, kept by triggers
//    in the writing transaction, so an unfiltered page's total_pages does not count a
//    million index entries. PostgreSQL spreads one workspace's count over 16 slots
//    (chosen by backend pid) so concurrent inserts do not queue on one counter row
//    until commit; the count is the sum of the slots. Rows are counted only while
//    their workspace exists (joined): a workspace's cascade delete removes its counts.
//
// 3. Sort orders (D1: sort column, then id): name sorts get an index each. On SQLite,
//    planner statistics for contacts' indexes (see below).

const SEP = 31; // the unit separator: never typed into a name, an email or a phone

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('row_counts')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', isSqlite(db) ? 'integer' : 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('row_counts_pk', ['workspace_id', 'table_name', 'slot'])
    .execute();

  for (const col of ['first_name', 'last_name']) {
    await db.schema.createIndex(`contacts_workspace_${col}`).on('contacts').columns(['workspace_id', col, 'id']).execute();
  }

  if (isSqlite(db)) await sqliteUp(db);
  else await postgresUp(db);
}

async function sqliteUp(db: Kysely<unknown>) {
  const doc = (r: string) =>
    sql.raw(`${r}first_name || ' ' || ${r}last_name || char(${SEP}) || coalesce(${r}email, '') || char(${SEP}) || coalesce(${r}phone, '')`);
  await sql`create view contacts_search_doc as select id, ${doc('')} as doc from contacts`.execute(db);
  await sql`create virtual table contacts_search using fts5(doc, content='contacts_search_doc', content_rowid='id', tokenize='trigram')`.execute(db);
  // External content: a deletion must give the indexed text back exactly (from old.*).
  await sql`create trigger contacts_search_insert after insert on contacts begin
    insert into contacts_search(rowid, doc) values (new.id, ${doc('new.')});
  end`.execute(db);
  await sql`create trigger contacts_search_delete after delete on contacts begin
    insert into contacts_search(contacts_search, rowid, doc) values ('delete', old.id, ${doc('old.')});
  end`.execute(db);
  await sql`create trigger contacts_search_update after update of id, first_name, last_name, email, phone on contacts begin
    insert into contacts_search(contacts_search, rowid, doc) values ('delete', old.id, ${doc('old.')});
    insert into contacts_search(rowid, doc) values (new.id, ${doc('new.')});
  end`.execute(db);
  await sql`insert into contacts_search(contacts_search) values ('rebuild')`.execute(db);

  // The planner has no statistics unless someone runs ANALYZE, and then guesses that
  // `workspace_id = ?` finds 10 rows: it walks the workspace's whole index (a million
  // entries) testing each against the search's id list. Statistics saying "a workspace
  // is large" make it read the search index's ids first. A later ANALYZE replaces them
  // with real ones, which say the same once a workspace is large.
  await sql`analyze sqlite_schema`.execute(db); // creates sqlite_stat1
  await sql`delete from sqlite_stat1 where tbl = 'contacts'`.execute(db);
  for (const [idx, stat] of [
    ['contacts_workspace_created', '1000000 100000 1 1'],
    ['contacts_workspace_email', '1000000 100000 2'],
    ['contacts_workspace_phone', '1000000 100000 2'],
    ['contacts_workspace_first_name', '1000000 100000 100 1'],
    ['contacts_workspace_last_name', '1000000 100000 100 1'],
  ]) {
    await sql`insert into sqlite_stat1 (tbl, idx, stat) values ('contacts', ${idx}, ${stat})`.execute(db);
  }
  await sql`analyze sqlite_schema`.execute(db); // reloads them

  // One writer at a time on SQLite: one slot.
  for (const [event, row, delta] of [['insert', 'new', 1], ['delete', 'old', -1]] as const) {
    await sql`create trigger ${sql.raw(`contacts_count_${event}`)} after ${sql.raw(event)} on contacts begin
      insert into row_counts (workspace_id, table_name, slot, n)
        select id, 'contacts', 0, ${sql.raw(String(delta))} from workspaces where id = ${sql.raw(`${row}.workspace_id`)}
        on conflict (workspace_id, table_name, slot) do update set n = n + excluded.n;
    end`.execute(db);
  }
  await sql`insert into row_counts (workspace_id, table_name, slot, n)
    select workspace_id, 'contacts', 0, count(*) from contacts group by workspace_id`.execute(db);
}

async function postgresUp(db: Kysely<unknown>) {
  await sql`create extension if not exists pg_trgm`.execute(db);
  // Per-field lower() so the document holds each searched field's lower() verbatim.
  const doc = sql.raw(
    `lower(first_name) || ' ' || lower(last_name) || chr(${SEP}) || lower(coalesce(email, '')) || chr(${SEP}) || lower(coalesce(phone, ''))`,
  );
  await sql`create index contacts_search_trgm on contacts using gin ((${doc}) gin_trgm_ops)`.execute(db);
  await sql`create view contacts_search as select id as rowid, ${doc} as doc from contacts`.execute(db);

  // Statement-level, with the transition table: a bulk insert or a cascade delete
  // updates each workspace's slot once, not once per row.
  await sql`
    create function fieldwork_count_rows() returns trigger language plpgsql as $$
    begin
      insert into row_counts (workspace_id, table_name, slot, n)
        select c.workspace_id, TG_TABLE_NAME, pg_backend_pid() % 16, TG_ARGV[0]::int * count(*)
        from changed c join workspaces w on w.id = c.workspace_id
        group by c.workspace_id order by c.workspace_id
        on conflict (workspace_id, table_name, slot) do update set n = row_counts.n + excluded.n;
      return null;
    end $$`.execute(db);
  await sql`create trigger contacts_count_insert after insert on contacts referencing new table as changed
    for each statement execute function fieldwork_count_rows('1')`.execute(db);
  await sql`create trigger contacts_count_delete after delete on contacts referencing old table as changed
    for each statement execute function fieldwork_count_rows('-1')`.execute(db);
  await sql`insert into row_counts (workspace_id, table_name, slot, n)
    select workspace_id, 'contacts', 0, count(*) from contacts group by workspace_id`.execute(db);
}
