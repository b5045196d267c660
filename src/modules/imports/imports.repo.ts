import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { DB, ImportsTable } from '../../db/schema.ts';

export type ImportRow = Selectable<ImportsTable>;

export async function insertImport(db: Kysely<DB>, values: Insertable<ImportsTable>): Promise<ImportRow> {
  return db.insertInto('imports').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findImport(db: Kysely<DB>, workspaceId: number, id: number): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The worker's claim of imports still to do (the partial index imports_due, 0030). */
export const importsDue = () => sql<boolean>`status in ('queued', 'running')`;

/** An import this worker holds (after its claim). */
export function claimedImport(db: Kysely<DB>, id: number, owner: string): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).where('locked_by', '=', owner).executeTakeFirst();
}

/**
 * Writes an import's progress if this worker still holds it, renewing its lease: in a
 * batch's transaction, so its rows and its progress commit together. False: it lost the
 * lease (another worker has it now), and the caller rolls back.
 */
export async function saveImport(db: Kysely<DB>, id: number, owner: string, values: Updateable<ImportsTable>): Promise<boolean> {
  const r = await db.updateTable('imports').set(values).where('id', '=', id).where('locked_by', '=', owner).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The workspace's contacts with these emails (lower case), oldest first per email, and whether each has a property. */
export async function contactsByEmail(db: Kysely<DB>, workspaceId: number, emails: string[]): Promise<Map<string, { id: number; hasProperty: boolean }>> {
  const out = new Map<string, { id: number; hasProperty: boolean }>();
  if (!emails.length) return out;
  const rows = await db
    .selectFrom('contacts as c')
    .select(['c.id', sql<string>`lower(c.email)`.as('email')])
    .select((eb) =>
      eb
        .exists(
          eb.selectFrom('contact_properties as cp').select('cp.property_id').where('cp.workspace_id', '=', workspaceId).whereRef('cp.contact_id', '=', 'c.id'),
        )
        .as('has_property'),
    )
    .where('c.workspace_id', '=', workspaceId)
    .where(sql`lower(c.email)`, 'in', emails)
    .orderBy('c.id')
    .execute();
  for (const r of rows) if (!out.has(r.email)) out.set(r.email, { id: r.id, hasProperty: Boolean(r.has_property) });
  return out;
}

/** The workspace's services with these names (lower case), oldest first per name. */
export async function servicesByName(db: Kysely<DB>, workspaceId: number, names: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!names.length) return out;
  const rows = await db
    .selectFrom('services')
    .select(['id', sql<string>`lower(name)`.as('name')])
    .where('workspace_id', '=', workspaceId)
    .where(sql`lower(name)`, 'in', names)
    .orderBy('id')
    .execute();
  for (const r of rows) if (!out.has(r.name)) out.set(r.name, r.id);
  return out;
}
