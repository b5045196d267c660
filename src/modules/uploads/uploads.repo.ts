import { type Insertable, type Kysely, PostgresAdapter, type Updateable } from 'kysely';
import { fromJson } from '../../db/json.ts';
import type { DB, StoredFilesTable, UploadLinksTable } from '../../db/schema.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import { recordDeletions } from '../../db/deletions.ts';
import { queueDeletion } from '../../storage/sweeper.ts';
import { isModuleType, type ModuleType, parentScopePrefix } from './parents.ts';
import type { UploadQuery } from './uploads.schemas.ts';

// Upload links joined with their stored file. Every query filters by workspace first.

const isPostgres = (db: Kysely<DB>) => db.getExecutor().adapter instanceof PostgresAdapter;

// Unaliased table names: the shared list builder (listOf) takes builders over DB's own tables.
const LINK_COLUMNS = [
  'upload_links.id as link_id',
  'upload_links.module_type',
  'upload_links.module_id',
  'upload_links.name',
  'upload_links.description',
  'upload_links.category',
  'upload_links.original_file_name',
  'upload_links.owner_id',
  'upload_links.created_at as link_created_at',
  'upload_links.updated_at as link_modified_at',
  'upload_links.file_id',
  'stored_files.bucket',
  'stored_files.path',
  'stored_files.mime_type',
  'stored_files.size',
  'stored_files.meta',
] as const;

const linksOf = (db: Kysely<DB>, workspaceId: number) =>
  db
    .selectFrom('upload_links')
    .innerJoin('stored_files', 'stored_files.id', 'upload_links.file_id')
    .select(LINK_COLUMNS)
    .where('upload_links.workspace_id', '=', workspaceId);

type RawLink = Awaited<ReturnType<ReturnType<typeof linksOf>['executeTakeFirstOrThrow']>>;
export type LinkRow = Omit<RawLink, 'meta'> & { meta: unknown };

const decode = (row: RawLink): LinkRow => ({ ...row, meta: fromJson(row.meta) });

const listSpec: ListSpec = {
  id: 'upload_links.id',
  sort: { created_at: 'upload_links.created_at', link_created_at: 'upload_links.created_at', name: 'upload_links.name', updated_at: 'upload_links.updated_at' },
  search: ['upload_links.name', 'upload_links.original_file_name'],
};

const list = listOf(listSpec, (db, f: { ws: number; module_type: string; module_id: number; category?: string }) => {
  let qb = linksOf(db, f.ws).where('upload_links.module_type', '=', f.module_type).where('upload_links.module_id', '=', f.module_id);
  if (f.category) qb = qb.where('upload_links.category', '=', f.category);
  return qb;
});

export async function listLinks(db: Kysely<DB>, workspaceId: number, q: UploadQuery) {
  const page = await list(db, { ws: workspaceId, module_type: q.module_type, module_id: q.module_id, category: q.category }, q);
  return { rows: page.rows.map(decode), pagination: page.pagination };
}

export async function findLink(db: Kysely<DB>, workspaceId: number, id: number): Promise<LinkRow | undefined> {
  const row = await linksOf(db, workspaceId).where('upload_links.id', '=', id).executeTakeFirst();
  return row && decode(row);
}

/** The stored file with these bytes, locked against a concurrent last-link delete (PostgreSQL). */
export async function findFileByContent(trx: Kysely<DB>, workspaceId: number, bucket: string, sha256: string) {
  let qb = trx.selectFrom('stored_files').select(['id']).where('workspace_id', '=', workspaceId).where('bucket', '=', bucket).where('sha256', '=', sha256);
  if (isPostgres(trx)) qb = qb.forUpdate();
  return qb.executeTakeFirst();
}

/**
 * Locks stored files (in id order, so concurrent deletes can't deadlock) before
 * their links are removed: the "is any link left?" count that follows then sees
 * every committed delete (SPEC Uploads 3 under concurrency). SQLite runs one
 * write transaction at a time and needs no lock.
 */
export async function lockFiles(trx: Kysely<DB>, workspaceId: number, fileIds: number[]): Promise<void> {
  if (!fileIds.length || !isPostgres(trx)) return;
  await trx.selectFrom('stored_files').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', fileIds).orderBy('id').forUpdate().execute();
}

/** Deletes the stored files no link uses any more and queues their bytes. Returns how many went. */
export async function releaseFiles(trx: Kysely<DB>, workspaceId: number, fileIds: number[]): Promise<number> {
  let released = 0;
  for (const fileId of new Set(fileIds)) {
    const used = await trx
      .selectFrom('upload_links')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('file_id', '=', fileId)
      .limit(1)
      .executeTakeFirst();
    if (used) continue;
    const file = await trx
      .deleteFrom('stored_files')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', fileId)
      .returning(['bucket', 'path'])
      .executeTakeFirst();
    if (!file) continue;
    await queueDeletion(trx, workspaceId, file.bucket, file.path);
    released++;
  }
  return released;
}

/** The file behind a download URL: the key is random and server-chosen (D20), so it names one file of one workspace. */
export function findFileByKey(db: Kysely<DB>, bucket: string, key: string) {
  return db.selectFrom('stored_files').select(['mime_type', 'original_file_name']).where('bucket', '=', bucket).where('path', '=', key).executeTakeFirst();
}

export async function insertStoredFile(trx: Kysely<DB>, values: Insertable<StoredFilesTable>): Promise<number> {
  return (await trx.insertInto('stored_files').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

export async function insertLink(trx: Kysely<DB>, values: Insertable<UploadLinksTable>): Promise<number> {
  return (await trx.insertInto('upload_links').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

/** False when the link is gone (deleted meanwhile). */
export async function updateLink(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<UploadLinksTable>): Promise<boolean> {
  const r = await db.updateTable('upload_links').set(values).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** False when the link is gone (a concurrent delete won). */
export async function deleteLink(trx: Kysely<DB>, workspaceId: number, id: number): Promise<boolean> {
  const r = await trx.deleteFrom('upload_links').where('workspace_id', '=', workspaceId).where('id', '=', id).returning('module_type').executeTakeFirst();
  if (r && isModuleType(r.module_type)) await recordDeletions(trx, workspaceId, 'uploads', [id], parentScopePrefix(r.module_type)); // E13
  return r !== undefined;
}

/** The distinct stored files a parent's links use. */
export async function fileIdsOfParent(trx: Kysely<DB>, workspaceId: number, moduleType: string, moduleId: number): Promise<number[]> {
  const links = await trx
    .selectFrom('upload_links')
    .select('file_id')
    .where('workspace_id', '=', workspaceId)
    .where('module_type', '=', moduleType)
    .where('module_id', '=', moduleId)
    .execute();
  return [...new Set(links.map((l) => l.file_id))];
}

/** E13 (F83): the links deleted with their parent get deletion entries too. */
export async function deleteLinksOfParent(trx: Kysely<DB>, workspaceId: number, moduleType: ModuleType, moduleId: number): Promise<void> {
  const gone = await trx
    .deleteFrom('upload_links')
    .where('workspace_id', '=', workspaceId)
    .where('module_type', '=', moduleType)
    .where('module_id', '=', moduleId)
    .returning('id')
    .execute();
  await recordDeletions(trx, workspaceId, 'uploads', gone.map((g) => g.id), parentScopePrefix(moduleType));
}
