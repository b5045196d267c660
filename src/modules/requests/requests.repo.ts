import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, RequestsTable } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate, sortByName } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import { dialectOf } from '../../db/json-helpers.ts';
import { type ContactRef, pendingRefs, type PropertyRef, type UserRef } from '../../db/related.ts';
import { customFieldDefsJson, type FieldDef, fieldDefsOf } from '../custom-fields/custom-fields.repo.ts';
import type { Request, RequestCreate, RequestQuery, RequestUpdate } from './requests.schemas.ts';

export const requestCodec = tableCodec<Request>()('requests', { json: ['data', 'custom_fields'] });
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

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'number', 'name', 'status', 'requested_on', 'created_at', 'updated_at']),
  search: ['name', 'details', sql`cast(number as text)`],
};

export async function listRequests(db: Kysely<DB>, workspaceId: number, q: RequestQuery) {
  let qb = db.selectFrom('requests').select(COLUMNS).where('workspace_id', '=', workspaceId);
  if (q.contact_id) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.status) qb = qb.where('status', 'in', csv(q.status));
  const page = await paginate(qb, q, listSpec);
  return { rows: page.rows.map((r) => requestCodec.decode(r)), pagination: page.pagination };
}

/** The API record of a row (drops `created_by`, parses JSON). */
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
  const d = dialectOf(db);
  const p = pendingRefs(workspaceId, {
    contact: ['contact', body.contact_id],
    property: ['property', body.property_id],
    assignee: ['user', body.assignee_id],
  });
  const row = await db
    .selectFrom(p.from)
    .select((eb) => [...p.select(eb, d), customFieldDefsJson(eb, d, workspaceId, fields ? 'request' : null).as('fields')])
    .executeTakeFirstOrThrow();
  const { refs, missing } = p.read(row);
  return { refs, defs: fieldDefsOf(row.fields), missing: missing.length > 0 };
}

/** What the `new_request` data (D33) shows of the request's contact. */
export function requestContact(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db.selectFrom('contacts').select(['first_name', 'last_name', 'email', 'phone']).where('workspace_id', '=', workspaceId).where('id', '=', contactId).executeTakeFirst();
}

export function requestOf(row: Selectable<RequestsTable>): Request {
  const { created_by: _, ...rest } = row;
  return requestCodec.decode(rest);
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
