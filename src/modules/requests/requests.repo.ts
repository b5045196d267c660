import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, RequestsTable } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { shapedQuery } from '../../db/shaped.ts';
import { csv } from '../../kernel/schemas.ts';
import { dialectOf } from '../../db/json-helpers.ts';
import { contactNameJson, type ContactRef, pendingRefs, withContact, type PropertyRef, type UserRef } from '../../db/related.ts';
import { customFieldDefsJson, type FieldDef, fieldDefsOf } from '../custom-fields/custom-fields.repo.ts';
import type { Request, RequestCreate, RequestQuery, RequestUpdate } from './requests.schemas.ts';

export const requestCodec = tableCodec<Request>()('requests', { json: ['data', 'custom_fields'], omit: ['created_by'] });
export const requests = tenantRows('requests');

const COLUMNS = [
  'id',
  'workspace_id',
  'number',
  'name',
  'contact_id',
  'property_id',
  'assignee_id',
  'details',
  'assessment',
  'requested_on',
  'status',
  'data',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;

const LIST_EXTRA = new Set(['contact']);

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'number', 'name', 'status', 'requested_on', 'created_at', 'updated_at']),
  searchContact: 'requests.contact_id',
  search: ['name', 'details', sql`cast(number as text)`],
};

const list = listOf(listSpec, (db, f: { ws: number; contact_id?: number; status?: string[]; expand: boolean }) => {
  let qb = db.selectFrom('requests').select(COLUMNS).where('workspace_id', '=', f.ws);
  if (f.expand) qb = qb.select((eb) => contactNameJson(eb, dialectOf(db), 'requests.contact_id').as('contact'));
  if (f.contact_id) qb = qb.where('contact_id', '=', f.contact_id);
  if (f.status) qb = qb.where('status', 'in', f.status);
  return qb;
});

export async function listRequests(db: Kysely<DB>, workspaceId: number, q: RequestQuery) {
  const expand = q.expand === 'contact';
  const page = await list(db, { ws: workspaceId, contact_id: q.contact_id, status: q.status ? csv(q.status) : undefined, expand }, q);
  // A13 (F223): with expand=contact, each with its client's name.
  const rows = page.rows.map((r) => {
    const request = requestCodec.decode(r, LIST_EXTRA);
    return expand ? Object.assign(request, { contact: withContact(r).contact }) : request;
  });
  return { rows, pagination: page.pagination };
}

/** The API record of a row (drops `created_by`, parses JSON). */
interface RequestInputValues {
  ws: number;
  contact: number | null | undefined;
  property: number | null | undefined;
  assignee: string | null | undefined;
  fields: boolean;
}
const requestRefsOf = (v: RequestInputValues) =>
  pendingRefs(v.ws, { contact: ['contact', v.contact], property: ['property', v.property], assignee: ['user', v.assignee] });
// Built and compiled once per shape (F166): which references the body names.
const requestInputs = shapedQuery((db, v: RequestInputValues) => {
  const d = dialectOf(db);
  const p = requestRefsOf(v);
  return db.selectFrom(p.from).select((eb) => [...p.select(eb, d), customFieldDefsJson(eb, d, v.ws, v.fields ? 'request' : null).as('fields')]);
});

/**
 * Before a write, in one statement: the records the body references (D11, in
 * the workspace) and, with `fields`, the request custom field definitions (D23).
 * `missing`: a given contact, property or assignee was not found.
 */
export async function loadRequestInputs(
  db: Kysely<DB>,
  workspaceId: number,
  body: RequestCreate | RequestUpdate,
  { fields }: { fields: boolean },
): Promise<{ refs: { contact: ContactRef | null; property: PropertyRef | null; assignee: UserRef | null }; defs: FieldDef[]; missing: boolean }> {
  const v: RequestInputValues = { ws: workspaceId, contact: body.contact_id, property: body.property_id, assignee: body.assignee_id, fields };
  const [row] = await requestInputs(db, v);
  if (!row) throw new Error('loadRequestInputs: no row');
  const { refs, missing } = requestRefsOf(v).read(row);
  return { refs, defs: fieldDefsOf(row.fields), missing: missing.length > 0 };
}

/** What the `new_request` data (D33) shows of the request's contact. */
export function requestContact(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db.selectFrom('contacts').select(['first_name', 'last_name', 'email', 'phone']).where('workspace_id', '=', workspaceId).where('id', '=', contactId).executeTakeFirst();
}

export function requestOf(row: Selectable<RequestsTable>): Request {
  return requestCodec.decode(row);
}

/** Inserts and answers the stored record (no read back). */
export async function insertRequest(db: Kysely<DB>, values: Insertable<RequestsTable>): Promise<Request> {
  return requestOf(await db.insertInto('requests').values(values).returningAll().executeTakeFirstOrThrow());
}

/** Updates and answers the stored record (no read back). */
export async function updateRequestRow(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<RequestsTable>): Promise<Request> {
  const row = await db
    .updateTable('requests')
    .set(values)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return requestOf(row);
}
