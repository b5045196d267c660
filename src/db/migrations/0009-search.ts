import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// Lists at 1,000,000 rows (src/db/list-query.ts):
//
// 1. Search. `<table>_search(rowid, doc)` is a relation both dialects can query with
//    one `doc like '%term%'` that an index serves: on SQLite an FTS5 table with the
//    trigram tokenizer (external content: the text stays in `contacts`, read through a
//    view), on PostgreSQL a view over an expression that a GIN pg_trgm index covers.
//    For contacts `doc` is "first last<US>email<US>phone" (US = char 31, the unit
//    separator), so one pattern covers first name, last name, full name, email and
//    phone; for properties, the address fields joined the same way. The
//    builder still re-checks each field with the original predicate, so the index
//    only narrows candidates and the SPEC semantics do not depend on it. Triggers
//    (SQLite) and the expression index (PostgreSQL) update it in the writing
//    transaction.
//
// 2. Counts. `row_counts` holds per-workspace row counts of contacts and properties, kept by triggers
//    in the writing transaction, so an unfiltered page's total_pages does not count a
//    million index entries. PostgreSQL spreads one workspace's count over 16 slots
//    (chosen by backend pid) so concurrent inserts do not queue on one counter row
//    until commit; the count is the sum of the slots. Rows are counted only while
//    their workspace exists (joined): a workspace's cascade delete removes its counts.
//
// 3. Sort orders (D1: sort column, then id): name sorts get an index each. On SQLite,
//    planner statistics for contacts' indexes (see below).

const SEP = 31; // the unit separator: never typed into a name, an email, a phone or an address

/** A searched table: its fields in `doc` order, and whether each may be null. */
interface Searched {
  table: 'contacts' | 'properties';
  /** Joined by SEP; an inner array is joined by a space ("first last"). */
  fields: (string | string[])[];
  nullable: string[];
}

const SEARCHED: Searched[] = [
  { table: 'contacts', fields: [['first_name', 'last_name'], 'email', 'phone'], nullable: ['email', 'phone'] },
  { table: 'properties', fields: ['street', 'street_2', 'city', 'state', 'postal_code', 'country'], nullable: [] },
];

/** The document of a row: `prefix` is '' (the table), 'new.' or 'old.' (SQLite triggers). */
function docSql(s: Searched, dialect: 'sqlite' | 'postgres', prefix = '') {
  const field = (f: string) => {
    const col = s.nullable.includes(f) ? `coalesce(${prefix}${f}, '')` : `${prefix}${f}`;
    // PostgreSQL: per-field lower(), so the document holds each searched field's lower() verbatim.
    return dialect === 'postgres' ? `lower(${col})` : col;
  };
  const sep = dialect === 'postgres' ? ` || chr(${SEP}) || ` : ` || char(${SEP}) || `;
  return sql.raw(s.fields.map((f) => (Array.isArray(f) ? f.map(field).join(" || ' ' || ") : field(f))).join(sep));
}

const columnsOf = (s: Searched) => s.fields.flat();

// SQLite's planner statistics (see sqliteUp): rows, then rows per distinct prefix.
const SQLITE_STATS: [string, string, string][] = [
  ['contacts', 'contacts_workspace_created', '1000000 100000 1 1'],
  ['contacts', 'contacts_workspace_email', '1000000 100000 2'],
  ['contacts', 'contacts_workspace_phone', '1000000 100000 2'],
  ['contacts', 'contacts_workspace_first_name', '1000000 100000 100 1'],
  ['contacts', 'contacts_workspace_last_name', '1000000 100000 100 1'],
  ['properties', 'properties_workspace_created', '1000000 100000 1 1'],
];

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
  for (const s of SEARCHED) {
    const t = s.table;
    const index = sql.raw(`${t}_search`);
    const doc = (prefix: string) => docSql(s, 'sqlite', prefix);
    await sql`create view ${sql.raw(`${t}_search_doc`)} as select id, ${doc('')} as doc from ${sql.raw(t)}`.execute(db);
    await sql`create virtual table ${index} using fts5(doc, content=${sql.lit(`${t}_search_doc`)}, content_rowid='id', tokenize='trigram')`.execute(db);
    // External content: a deletion must give the indexed text back exactly (from old.*).
    await sql`create trigger ${sql.raw(`${t}_search_insert`)} after insert on ${sql.raw(t)} begin
      insert into ${index}(rowid, doc) values (new.id, ${doc('new.')});
    end`.execute(db);
    await sql`create trigger ${sql.raw(`${t}_search_delete`)} after delete on ${sql.raw(t)} begin
      insert into ${index}(${index}, rowid, doc) values ('delete', old.id, ${doc('old.')});
    end`.execute(db);
    await sql`create trigger ${sql.raw(`${t}_search_update`)} after update of ${sql.raw(['id', ...columnsOf(s)].join(', '))} on ${sql.raw(t)} begin
      insert into ${index}(${index}, rowid, doc) values ('delete', old.id, ${doc('old.')});
      insert into ${index}(rowid, doc) values (new.id, ${doc('new.')});
    end`.execute(db);
    await sql`insert into ${index}(${index}) values ('rebuild')`.execute(db);

    // One writer at a time on SQLite: one slot.
    for (const [event, row, delta] of [['insert', 'new', 1], ['delete', 'old', -1]] as const) {
      await sql`create trigger ${sql.raw(`${t}_count_${event}`)} after ${sql.raw(event)} on ${sql.raw(t)} begin
        insert into row_counts (workspace_id, table_name, slot, n)
          select id, ${sql.lit(t)}, 0, ${sql.raw(String(delta))} from workspaces where id = ${sql.raw(`${row}.workspace_id`)}
          on conflict (workspace_id, table_name, slot) do update set n = n + excluded.n;
      end`.execute(db);
    }
    await sql`insert into row_counts (workspace_id, table_name, slot, n)
      select workspace_id, ${sql.lit(t)}, 0, count(*) from ${sql.raw(t)} group by workspace_id`.execute(db);
  }

  // The planner has no statistics unless someone runs ANALYZE, and then guesses that
  // `workspace_id = ?` finds 10 rows: it walks the workspace's whole index (a million
  // entries) testing each against the search's id list. Statistics saying "a workspace
  // is large" make it read the search index's ids first. A later ANALYZE replaces them
  // with real ones, which say the same once a workspace is large.
  await sql`analyze sqlite_schema`.execute(db); // creates sqlite_stat1
  for (const [tbl, idx, stat] of SQLITE_STATS) {
    await sql`delete from sqlite_stat1 where tbl = ${tbl} and idx = ${idx}`.execute(db);
    await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${tbl}, ${idx}, ${stat})`.execute(db);
  }
  await sql`analyze sqlite_schema`.execute(db); // reloads them
}

async function postgresUp(db: Kysely<unknown>) {
  await sql`create extension if not exists pg_trgm`.execute(db);
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

  for (const s of SEARCHED) {
    const t = sql.raw(s.table);
    const doc = docSql(s, 'postgres');
    // fastupdate off: otherwise every search reads the pending list (up to 4 MB of
    // recent entries) until a vacuum merges it; an insert pays for its entries instead.
    await sql`create index ${sql.raw(`${s.table}_search_trgm`)} on ${t} using gin ((${doc}) gin_trgm_ops) with (fastupdate = off)`.execute(db);
    await sql`create view ${sql.raw(`${s.table}_search`)} as select id as rowid, ${doc} as doc from ${t}`.execute(db);

    await sql`create trigger ${sql.raw(`${s.table}_count_insert`)} after insert on ${t} referencing new table as changed
      for each statement execute function fieldwork_count_rows('1')`.execute(db);
    await sql`create trigger ${sql.raw(`${s.table}_count_delete`)} after delete on ${t} referencing old table as changed
      for each statement execute function fieldwork_count_rows('-1')`.execute(db);
    await sql`insert into row_counts (workspace_id, table_name, slot, n)
      select workspace_id, ${sql.lit(s.table)}, 0, count(*) from ${t} group by workspace_id`.execute(db);
  }
}
