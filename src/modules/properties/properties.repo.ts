import type { Kysely } from 'kysely';
import type { DB, PropertiesTable } from '../../db/schema.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { ContactProperty, ContactPropertyQuery, Property, PropertyQuery } from './properties.schemas.ts';

// The address is stored as columns (one per sub-field) and nested on the way out.

const COLUMNS = [
  'properties.id',
  'properties.workspace_id',
  'properties.street',
  'properties.street_2',
  'properties.city',
  'properties.state',
  'properties.postal_code',
  'properties.country',
  'properties.property_type',
  'properties.access_notes',
  'properties.created_at',
  'properties.updated_at',
] as const;

type PropertyRow = Omit<PropertiesTable, 'id'> & { id: number };

const sort = { id: 'properties.id', property_type: 'properties.property_type', created_at: 'properties.created_at', modified_at: 'properties.updated_at', updated_at: 'properties.updated_at' };

/** SPEC list filters: the workspace list searches street, city, state and postal code. */
const listSpec: ListSpec = {
  id: 'properties.id',
  sort,
  // Index-backed (migration 0009); the columns keep the SPEC's matching exact.
  search: { columns: ['properties.street', 'properties.city', 'properties.state', 'properties.postal_code'], index: 'properties_search' },
  rowCount: 'properties',
};

/** A contact's list searches "by address": every sub-field. */
const contactListSpec: ListSpec = {
  id: 'properties.id',
  sort,
  search: {
    columns: ['properties.street', 'properties.street_2', 'properties.city', 'properties.state', 'properties.postal_code', 'properties.country'],
    index: 'properties_search',
  },
};

function view(r: PropertyRow) {
  return {
    id: r.id,
    address: { street: r.street, street_2: r.street_2, city: r.city, state: r.state, postal_code: r.postal_code, country: r.country },
    property_type: r.property_type,
    access_notes: r.access_notes,
    workspace_id: r.workspace_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** property id -> linked contact ids (ascending), for a whole page in one query. */
async function contactIdsOf(db: Kysely<DB>, workspaceId: number, propertyIds: number[]) {
  const map = new Map<number, number[]>();
  if (!propertyIds.length) return map;
  const links = await db
    .selectFrom('contact_properties')
    .select(['property_id', 'contact_id'])
    .where('workspace_id', '=', workspaceId)
    .where('property_id', 'in', propertyIds)
    .orderBy('contact_id')
    .execute();
  for (const l of links) {
    const ids = map.get(l.property_id) ?? [];
    ids.push(l.contact_id);
    map.set(l.property_id, ids);
  }
  return map;
}

const list = listOf(listSpec, (db, f: { ws: number; property_type?: string }) => {
  let qb = db.selectFrom('properties').select(COLUMNS).where('properties.workspace_id', '=', f.ws);
  if (f.property_type) qb = qb.where('properties.property_type', '=', f.property_type);
  return qb;
});

export async function listProperties(db: Kysely<DB>, workspaceId: number, q: PropertyQuery) {
  const page = await list(db, { ws: workspaceId, property_type: q.property_type }, q);
  const contactIds = await contactIdsOf(db, workspaceId, page.rows.map((r) => r.id));
  const rows: Property[] = page.rows.map((r) => ({ ...view(r), contact_ids: contactIds.get(r.id) ?? [] }));
  return { rows, pagination: page.pagination };
}

/** The contact's linked properties, each with that link's role (D26). */
function linked(db: Kysely<DB>, workspaceId: number, contactId: number) {
  return db
    .selectFrom('contact_properties')
    .innerJoin('properties', (j) =>
      j.onRef('properties.id', '=', 'contact_properties.property_id').on('properties.workspace_id', '=', workspaceId),
    )
    .select([...COLUMNS, 'contact_properties.role'])
    .where('contact_properties.workspace_id', '=', workspaceId)
    .where('contact_properties.contact_id', '=', contactId);
}

const contactList = listOf(contactListSpec, (db, f: { ws: number; contact: number }) => linked(db, f.ws, f.contact));

export async function listContactProperties(db: Kysely<DB>, workspaceId: number, contactId: number, q: ContactPropertyQuery) {
  const page = await contactList(db, { ws: workspaceId, contact: contactId }, q);
  const rows: ContactProperty[] = page.rows.map((r) => ({ ...view(r), role: r.role }));
  return { rows, pagination: page.pagination };
}

export async function findContactProperty(db: Kysely<DB>, workspaceId: number, contactId: number, propertyId: number): Promise<ContactProperty | undefined> {
  const r = await linked(db, workspaceId, contactId).where('properties.id', '=', propertyId).executeTakeFirst();
  return r && { ...view(r), role: r.role };
}

export async function contactExists(db: Kysely<DB>, workspaceId: number, contactId: number) {
  const r = await db.selectFrom('contacts').select('id').where('workspace_id', '=', workspaceId).where('id', '=', contactId).executeTakeFirst();
  return Boolean(r);
}

export async function linkExists(db: Kysely<DB>, workspaceId: number, contactId: number, propertyId: number) {
  const r = await db
    .selectFrom('contact_properties')
    .select('property_id')
    .where('workspace_id', '=', workspaceId)
    .where('contact_id', '=', contactId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return Boolean(r);
}

export async function insertProperty(db: Kysely<DB>, workspaceId: number, values: Omit<PropertiesTable, 'id' | 'workspace_id'>) {
  const r = await db.insertInto('properties').values({ ...values, workspace_id: workspaceId }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

/** Many properties in one INSERT, their ids in the order given (ids are assigned in VALUES order). */
export async function insertProperties(db: Kysely<DB>, workspaceId: number, values: Omit<PropertiesTable, 'id' | 'workspace_id'>[]): Promise<number[]> {
  if (!values.length) return [];
  const rows = await db.insertInto('properties').values(values.map((v) => ({ ...v, workspace_id: workspaceId }))).returning('id').execute();
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export async function insertLinks(db: Kysely<DB>, workspaceId: number, links: { contact_id: number; property_id: number; role: string; created_at: string }[]) {
  if (links.length) await db.insertInto('contact_properties').values(links.map((l) => ({ ...l, workspace_id: workspaceId }))).execute();
}

export async function insertLink(db: Kysely<DB>, workspaceId: number, link: { contact_id: number; property_id: number; role: string; created_at: string }) {
  await db.insertInto('contact_properties').values({ ...link, workspace_id: workspaceId }).execute();
}

export async function updateProperty(db: Kysely<DB>, workspaceId: number, id: number, values: Partial<Omit<PropertiesTable, 'id' | 'workspace_id'>>) {
  await db.updateTable('properties').set(values).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export async function updateLinkRole(db: Kysely<DB>, workspaceId: number, contactId: number, propertyId: number, role: string) {
  await db
    .updateTable('contact_properties')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('contact_id', '=', contactId)
    .where('property_id', '=', propertyId)
    .execute();
}

export async function deleteLink(db: Kysely<DB>, workspaceId: number, contactId: number, propertyId: number) {
  const r = await db
    .deleteFrom('contact_properties')
    .where('workspace_id', '=', workspaceId)
    .where('contact_id', '=', contactId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
