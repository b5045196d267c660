import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, WorkspacesTable } from '../../db/schema.ts';

export type WorkspaceRow = Selectable<WorkspacesTable>;

export function findWorkspace(db: Kysely<DB>, id: number): Promise<WorkspaceRow | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function slugTaken(db: Kysely<DB>, slug: string): Promise<boolean> {
  return !!(await db.selectFrom('workspaces').select('id').where('slug', '=', slug).executeTakeFirst());
}

export function insertWorkspace(db: Kysely<DB>, values: Insertable<WorkspacesTable>): Promise<WorkspaceRow> {
  return db.insertInto('workspaces').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateWorkspace(db: Kysely<DB>, id: number, values: Updateable<WorkspacesTable>): Promise<WorkspaceRow> {
  return db.updateTable('workspaces').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}
