import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
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

/** The logo behind a public file URL (A125): the key is random and server-chosen, so it names one workspace's logo. */
export async function findLogoByKey(db: Kysely<DB>, key: string) {
  const row = await db.selectFrom('workspaces').select(['logo_type']).where('logo_key', '=', key).executeTakeFirst();
  return row && { mime_type: row.logo_type ?? 'application/octet-stream', original_file_name: `logo.${key.endsWith('.png') ? 'png' : 'jpg'}` };
}

// Compiled once: Home and every invoice or payment that defaults its date read it (F168).
const timezoneOf = prepared({ ws: 'number' }, (db, p) => db.selectFrom('workspaces').select('timezone').where('id', '=', p.ws));

/** The workspace's IANA time zone (null: none set). */
export async function workspaceTimezone(db: Kysely<DB>, workspaceId: number): Promise<string | null> {
  return (await timezoneOf(db, { ws: workspaceId }))[0]?.timezone ?? null;
}
