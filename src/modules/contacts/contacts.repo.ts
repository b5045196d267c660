import { type Kysely, sql } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import type { Contact, ContactQuery } from './contacts.schemas.ts';

export const contactCodec = rowCodec<Contact>({ json: ['info', 'custom_fields'] });

export const listSpec: ListSpec = {
  id: 'id',
  sort: Object.fromEntries(['id', 'first_name', 'last_name', 'email', 'company', 'type', 'created_at', 'updated_at'].map((f) => [f, f])),
  // Index-backed (migration 0009); the columns keep the SPEC's matching exact.
  search: { columns: ['first_name', 'last_name', 'email', 'phone', sql`first_name || ' ' || last_name`], index: 'contacts_search' },
  rowCount: 'contacts',
};

const COLUMNS = [
  'id', 'workspace_id', 'first_name', 'last_name', 'email', 'phone', 'secondary_email', 'secondary_phone', 'company',
  'company_department', 'company_position', 'title', 'type', 'owner_id', 'info', 'custom_fields', 'created_at', 'updated_at',
] as const;

export async function listContacts(db: Kysely<DB>, workspaceId: number, q: ContactQuery) {
  let qb = db.selectFrom('contacts').select(COLUMNS).where('workspace_id', '=', workspaceId);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.owner_id) qb = qb.where('owner_id', '=', q.owner_id);
  const page = await paginate(qb, q, listSpec);
  return { rows: page.rows.map((r) => contactCodec.decode(r)), pagination: page.pagination };
}

export async function findContact(db: Kysely<DB>, workspaceId: number, id: number) {
  const row = await db.selectFrom('contacts').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return row && { ...contactCodec.decode(row), created_by: row.created_by };
}

export async function insertContact(db: Kysely<DB>, values: Record<string, unknown>) {
  return db.insertInto('contacts').values(values as never).returning('id').executeTakeFirstOrThrow();
}

export async function updateContact(db: Kysely<DB>, workspaceId: number, id: number, values: Record<string, unknown>) {
  const r = await db.updateTable('contacts').set(values as never).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteContact(db: Kysely<DB>, workspaceId: number, id: number) {
  const r = await db.deleteFrom('contacts').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
