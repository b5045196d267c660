import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { ContactsTable, DB } from '../../db/schema.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { recordDeletions } from '../../db/deletions.ts';
import { dialectOf, parseJson } from '../../db/json-helpers.ts';
import { prepared } from '../../db/prepared.ts';
import { shapedQuery } from '../../db/shaped.ts';
import { pendingRow, type UserRef, userRefJson } from '../../db/related.ts';
import { customFieldDefsJson, fieldDefsOf } from '../custom-fields/custom-fields.repo.ts';
import type { Contact, ContactDetail, ContactQuery } from './contacts.schemas.ts';

export const contactCodec = tableCodec<Contact>()('contacts', { json: ['info', 'custom_fields'] });

export const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'first_name', 'last_name', 'email', 'company', 'type', 'created_at', 'updated_at']),
  // Index-backed (migration 0009); the columns keep the SPEC's matching exact.
  search: { columns: ['first_name', 'last_name', 'email', 'phone', sql`first_name || ' ' || last_name`], index: 'contacts_search' },
  rowCount: 'contacts',
};

const COLUMNS = [
  'id', 'workspace_id', 'first_name', 'last_name', 'email', 'phone', 'secondary_email', 'secondary_phone', 'company',
  'company_department', 'company_position', 'title', 'type', 'owner_id', 'info', 'custom_fields', 'created_at', 'updated_at',
] as const;

const list = listOf(listSpec, (db, f: { ws: number; type?: string; owner_id?: string }) => {
  let qb = db.selectFrom('contacts').select(COLUMNS).where('workspace_id', '=', f.ws);
  if (f.type) qb = qb.where('type', '=', f.type);
  if (f.owner_id) qb = qb.where('owner_id', '=', f.owner_id);
  return qb;
});

export async function listContacts(db: Kysely<DB>, workspaceId: number, q: ContactQuery) {
  const page = await list(db, { ws: workspaceId, type: q.type, owner_id: q.owner_id }, q);
  return { rows: page.rows.map((r) => contactCodec.decode(r)), pagination: page.pagination };
}

type ContactColumns = (typeof COLUMNS)[number];
type ContactRow = Pick<Selectable<DB['contacts']>, ContactColumns>;

interface UserNames {
  user_id: string | null;
  first_name: string | null;
  last_name: string | null;
}
const ref = (u: UserNames): UserRef | null => (u.user_id ? { id: u.user_id, first_name: u.first_name, last_name: u.last_name } : null);

/** The single-GET shape of a row and its two users; `extra`: the columns a query joined in. */
export function contactDetailOf(row: ContactRow, owner: UserRef | null, createdBy: UserRef | null, extra?: ReadonlySet<string>): ContactDetail {
  // decode already made a new object: the users go onto it rather than into a third copy (the hottest read).
  return Object.assign(contactCodec.decode(row, extra), { owner, created_by: createdBy });
}
const USER_COLUMNS = new Set(['o_id', 'o_first', 'o_last', 'b_id', 'b_first', 'b_last']);

// The hottest read of the API: one prepared statement, the two users joined.
const detailById = prepared({ ws: 'number', id: 'number' }, (db, p) => detailQuery(db).where('c.workspace_id', '=', p.ws).where('c.id', '=', p.id));

function detailQuery(db: Kysely<DB>) {
  return db
    .selectFrom('contacts as c')
    .leftJoin('users as o', (j) => j.onRef('o.workspace_id', '=', 'c.workspace_id').onRef('o.user_id', '=', 'c.owner_id'))
    .leftJoin('users as b', (j) => j.onRef('b.workspace_id', '=', 'c.workspace_id').onRef('b.user_id', '=', 'c.created_by'))
    .select(COLUMNS.map((col) => `c.${col}` as const))
    .select(['o.user_id as o_id', 'o.first_name as o_first', 'o.last_name as o_last', 'b.user_id as b_id', 'b.first_name as b_first', 'b.last_name as b_last']);
}

type DetailRow = Awaited<ReturnType<ReturnType<typeof detailQuery>['execute']>>[number];
const detailOf = (r: DetailRow) =>
  contactDetailOf(r, ref({ user_id: r.o_id, first_name: r.o_first, last_name: r.o_last }), ref({ user_id: r.b_id, first_name: r.b_first, last_name: r.b_last }), USER_COLUMNS);

/** A contact with `owner` and `created_by` expanded, in one statement; undefined when absent. */
export async function findContactDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<ContactDetail | undefined> {
  const [r] = await detailById(db, { ws: workspaceId, id });
  return r && detailOf(r);
}

/** `findContactDetail` for many ids in one statement (E28's batches): by id. */
export async function findContactDetails(db: Kysely<DB>, workspaceId: number, ids: number[]): Promise<Map<number, ContactDetail>> {
  if (!ids.length) return new Map();
  const rows = await detailQuery(db).where('c.workspace_id', '=', workspaceId).where('c.id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, detailOf(r)]));
}

/**
 * What a write needs before it writes, in one statement: the owner it names (D11),
 * the acting user (created_by) and, when asked, the contact custom-field definitions (D23).
 */
export async function loadContactWrite(db: Kysely<DB>, workspaceId: number, ownerId: string | null | undefined, actingUserId: string | null, withDefs: boolean) {
  const [row] = await writeLoad[Number(withDefs)](db, { ws: workspaceId, owner: ownerId ?? null, by: actingUserId });
  return { owner: parseJson(row.owner), createdBy: parseJson(row.created_by), defs: fieldDefsOf(row.defs) };
}

// Built and compiled once per variant (F164): building it cost a create more CPU than running it.
const writeLoad = [false, true].map((withDefs) =>
  prepared({ ws: 'number', owner: 'string?', by: 'string?' }, (db, p) => {
    const d = dialectOf(db);
    return db
      .selectFrom(pendingRow(p.ws, {}, { owner_id: p.owner, created_by: p.by }).as('pending'))
      .select((eb) => [
        userRefJson(eb, d, 'pending.owner_id').as('owner'),
        userRefJson(eb, d, 'pending.created_by').as('created_by'),
        customFieldDefsJson(eb, d, p.ws, withDefs ? 'contact' : null).as('defs'),
      ]);
  }),
);

// Compiled once per shape of the row (which columns are set), as quotes' (F166).
const insertContactQuery = shapedQuery((db, values: Insertable<ContactsTable>) => db.insertInto('contacts').values(values).returning(COLUMNS));

export async function insertContact(db: Kysely<DB>, values: Insertable<ContactsTable>): Promise<ContactRow> {
  const [row] = await insertContactQuery(db, values);
  return row!;
}

/** Many contacts in one INSERT (E28's batches), their rows in the order given: ids are assigned in VALUES order. */
export async function insertContacts(db: Kysely<DB>, values: Insertable<ContactsTable>[]): Promise<ContactRow[]> {
  if (!values.length) return [];
  const rows = await db.insertInto('contacts').values(values).returning(COLUMNS).execute();
  return rows.sort((a, b) => a.id - b.id);
}

export async function updateContact(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<ContactsTable>) {
  const r = await db.updateTable('contacts').set(values).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteContact(db: Kysely<DB>, workspaceId: number, id: number) {
  const r = await db.deleteFrom('contacts').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  const gone = Number(r.numDeletedRows) > 0;
  if (gone) await recordDeletions(db, workspaceId, 'contacts', [id]); // E13, in the delete's transaction
  return gone;
}
