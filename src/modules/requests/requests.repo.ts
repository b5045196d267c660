import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, RequestsTable } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Request, RequestQuery } from './requests.schemas.ts';

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
  sort: Object.fromEntries(['id', 'number', 'name', 'status', 'requested_on', 'created_at', 'updated_at'].map((f) => [f, f])),
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
