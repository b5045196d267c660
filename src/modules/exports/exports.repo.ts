import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { DB, ExportsTable } from '../../db/schema.ts';

export type ExportRow = Selectable<ExportsTable>;

export function insertExport(db: Kysely<DB>, values: Insertable<ExportsTable>): Promise<ExportRow> {
  return db.insertInto('exports').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findExport(db: Kysely<DB>, workspaceId: number, id: number): Promise<ExportRow | undefined> {
  return db.selectFrom('exports').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The worker's claim of exports still to do (the partial index exports_due, 0030). */
export const exportsDue = () => sql<boolean>`status in ('queued', 'running')`;

export function claimedExport(db: Kysely<DB>, id: number, owner: string): Promise<ExportRow | undefined> {
  return db.selectFrom('exports').selectAll().where('id', '=', id).where('locked_by', '=', owner).executeTakeFirst();
}

/** Writes an export's state if this worker still holds it; false when it lost the lease. */
export async function saveExport(db: Kysely<DB>, id: number, owner: string, values: Updateable<ExportsTable>): Promise<boolean> {
  const r = await db.updateTable('exports').set(values).where('id', '=', id).where('locked_by', '=', owner).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A page of the workspace's stored files, by id (keyset), for the ZIP's `files/`. */
export function storedFilesAfter(db: Kysely<DB>, workspaceId: number, afterId: number, limit: number) {
  return db
    .selectFrom('stored_files')
    .select(['id', 'bucket', 'path', 'size', 'mime_type', 'original_file_name'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** A page of the workspace's upload links, by id (keyset): which record each file belongs to. */
export function uploadLinksAfter(db: Kysely<DB>, workspaceId: number, afterId: number, limit: number) {
  return db
    .selectFrom('upload_links as l')
    .innerJoin('stored_files as f', (j) => j.onRef('f.id', '=', 'l.file_id').onRef('f.workspace_id', '=', 'l.workspace_id'))
    .select([
      'l.id as link_id',
      'l.file_id',
      'l.module_type',
      'l.module_id',
      'l.name',
      'l.description',
      'l.category',
      'l.original_file_name',
      'l.created_at',
      'f.original_file_name as file_name',
    ])
    .where('l.workspace_id', '=', workspaceId)
    .where('l.id', '>', afterId)
    .orderBy('l.id')
    .limit(limit)
    .execute();
}

/** A finished export's ZIP by its storage key (`<workspace id>/<hex>.zip`), as /files serves it. */
export async function findExportFile(db: Kysely<DB>, key: string): Promise<{ mime_type: string; original_file_name: string } | undefined> {
  const workspaceId = Number(key.slice(0, key.indexOf('/')));
  if (!Number.isInteger(workspaceId) || workspaceId < 1) return undefined;
  const row = await db
    .selectFrom('exports')
    .select(['workspace_id', 'finished_at'])
    .where('workspace_id', '=', workspaceId)
    .where('file_key', '=', key)
    .executeTakeFirst();
  return row && { mime_type: 'application/zip', original_file_name: `fieldwork-export-${row.workspace_id}-${(row.finished_at ?? '').slice(0, 10)}.zip` };
}
