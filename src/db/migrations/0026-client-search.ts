import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// A13 (F220): lists of requests, quotes, jobs and invoices find a document by its client's
// name or company (src/db/list-query.ts `searchContact`). The contacts' trigram document
// (0009: "first last<US>email<US>phone") gains the company as a fourth field, so one
// index-backed `doc like '%term%'` gives the candidate clients of every one of those
// searches. The contacts list's own search still matches only its columns (name, email,
// phone): the index only narrows candidates.

const SEP = 31; // the unit separator, as in 0009

function docSql(dialect: 'sqlite' | 'postgres', prefix = '') {
  const field = (f: string, nullable: boolean) => {
    const col = nullable ? `coalesce(${prefix}${f}, '')` : `${prefix}${f}`;
    return dialect === 'postgres' ? `lower(${col})` : col;
  };
  const sep = dialect === 'postgres' ? ` || chr(${SEP}) || ` : ` || char(${SEP}) || `;
  const name = `${field('first_name', false)} || ' ' || ${field('last_name', false)}`;
  return sql.raw([name, field('email', true), field('phone', true), field('company', true)].join(sep));
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await sqliteUp(db);
  else await postgresUp(db);
}

async function sqliteUp(db: Kysely<unknown>) {
  for (const name of ['contacts_search_insert', 'contacts_search_delete', 'contacts_search_update']) await sql`drop trigger ${sql.raw(name)}`.execute(db);
  await sql`drop table contacts_search`.execute(db);
  await sql`drop view contacts_search_doc`.execute(db);
  const doc = (prefix: string) => docSql('sqlite', prefix);
  await sql`create view contacts_search_doc as select id, ${doc('')} as doc from contacts`.execute(db);
  await sql`create virtual table contacts_search using fts5(doc, content='contacts_search_doc', content_rowid='id', tokenize='trigram')`.execute(db);
  // External content: a deletion must give the indexed text back exactly (from old.*).
  await sql`create trigger contacts_search_insert after insert on contacts begin
    insert into contacts_search(rowid, doc) values (new.id, ${doc('new.')});
  end`.execute(db);
  await sql`create trigger contacts_search_delete after delete on contacts begin
    insert into contacts_search(contacts_search, rowid, doc) values ('delete', old.id, ${doc('old.')});
  end`.execute(db);
  await sql`create trigger contacts_search_update after update of id, first_name, last_name, email, phone, company on contacts begin
    insert into contacts_search(contacts_search, rowid, doc) values ('delete', old.id, ${doc('old.')});
    insert into contacts_search(rowid, doc) values (new.id, ${doc('new.')});
  end`.execute(db);
  await sql`insert into contacts_search(contacts_search) values ('rebuild')`.execute(db);
}

async function postgresUp(db: Kysely<unknown>) {
  const doc = docSql('postgres');
  await sql`drop view contacts_search`.execute(db);
  await sql`drop index contacts_search_trgm`.execute(db);
  await sql`create index contacts_search_trgm on contacts using gin ((${doc}) gin_trgm_ops) with (fastupdate = off)`.execute(db);
  await sql`create view contacts_search as select id as rowid, ${doc} as doc from contacts`.execute(db);
}
