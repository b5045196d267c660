import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB, RequestsTable } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate, sortByName } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Request, RequestQuery } from './requests.schemas.ts';

export const requestCodec = rowCodec<Request>({ json: ['data', 'custom_fields'] });
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
export function requestOf(row: Record<string, unknown> & object): Request {
  const { created_by: _, ...rest } = row;
  return requestCodec.decode(rest);
}

/** Inserts and answers the stored record (no read back). */
export async function insertRequest(db: Kysely<DB>, values: Record<string, unknown>): Promise<Request> {
  return requestOf(await db.insertInto('requests').values(values as Insertable<RequestsTable>).returningAll().executeTakeFirstOrThrow());
}

/** Updates and answers the stored record (no read back). */
export async function updateRequestRow(db: Kysely<DB>, workspaceId: number, id: number, values: Record<string, unknown>): Promise<Request> {
  const row = await db
    .updateTable('requests')
    .set(values as Updateable<RequestsTable>)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return requestOf(row);
}
