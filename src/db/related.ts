import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from './schema.ts';
import { Id, Nullable, UserRef } from '../kernel/schemas.ts';

// The compact related objects the expanded single GETs carry ("Get quote and
// get job: expanded with related data"; invoice `contact` and `job`). Each is
// one indexed lookup scoped by workspace; a missing target is null.

export const ContactName = Type.Object({ id: Id, first_name: Type.String(), last_name: Type.String() });
export const ContactRef = Type.Object({ ...ContactName.properties, email: Nullable(Type.String()), phone: Nullable(Type.String()) });
export const PropertyRef = Type.Object({
  id: Id,
  address: Type.Object({
    street: Type.String(),
    street_2: Type.String(),
    city: Type.String(),
    state: Type.String(),
    postal_code: Type.String(),
    country: Type.String(),
  }),
  property_type: Type.String(),
});
/** A request, quote or job, by number and name. */
export const DocumentRef = Type.Object({ id: Id, number: Type.Integer(), name: Nullable(Type.String()), status: Type.String() });
export { UserRef };

type Db = Kysely<DB>;

export async function contactRef(db: Db, workspaceId: number, id: number | null) {
  if (id === null) return null;
  const c = await db
    .selectFrom('contacts')
    .select(['id', 'first_name', 'last_name', 'email', 'phone'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return c ?? null;
}

export async function contactName(db: Db, workspaceId: number, id: number | null) {
  const c = await contactRef(db, workspaceId, id);
  return c && { id: c.id, first_name: c.first_name, last_name: c.last_name };
}

export async function propertyRef(db: Db, workspaceId: number, id: number | null) {
  if (id === null) return null;
  const p = await db.selectFrom('properties').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!p) return null;
  const { street, street_2, city, state, postal_code, country } = p;
  return { id: p.id, address: { street, street_2, city, state, postal_code, country }, property_type: p.property_type };
}

export async function documentRef(db: Db, table: 'requests' | 'quotes' | 'jobs', workspaceId: number, id: number | null) {
  if (id === null) return null;
  const r = await db
    .selectFrom(table)
    .select(['id', 'number', 'name', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r ?? null;
}

export async function userRef(db: Db, workspaceId: number, uuid: string | null) {
  if (!uuid) return null;
  const u = await db
    .selectFrom('users')
    .select(['user_id', 'first_name', 'last_name'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', uuid)
    .executeTakeFirst();
  return u ? { id: u.user_id, first_name: u.first_name, last_name: u.last_name } : null;
}
