import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { requestSweep } from '../../storage/sweeper.ts';
import type { ModuleType } from './parents.ts';
import { deleteCommentsOf } from '../comments/comments.repo.ts';
import { deleteLinksOfParent, fileIdsOfParent, lockFiles, releaseFiles } from './uploads.repo.ts';

/**
 * D12: a deleted parent takes its upload links and comments with it. Call it with
 * the transaction that deletes the parent: if that rolls back, nothing is lost.
 * A stored file goes only when no other link uses it (SPEC Uploads 3); its bytes
 * are removed by the sweeper once this transaction has committed.
 */
export async function removeAttachments(trx: Kysely<DB>, workspaceId: number, moduleType: ModuleType, moduleId: number): Promise<void> {
  const fileIds = await fileIdsOfParent(trx, workspaceId, moduleType, moduleId);
  if (fileIds.length) {
    await lockFiles(trx, workspaceId, fileIds);
    await deleteLinksOfParent(trx, workspaceId, moduleType, moduleId);
    if (await releaseFiles(trx, workspaceId, fileIds)) requestSweep();
  }
  await deleteCommentsOf(trx, workspaceId, moduleType, moduleId);
}

/** A parent's D12 delete in one transaction: its attachments first, then `deleteParent` (whose result is returned). */
export function deleteWithAttachments<T>(
  db: Kysely<DB>,
  workspaceId: number,
  moduleType: ModuleType,
  moduleId: number,
  deleteParent: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await removeAttachments(trx, workspaceId, moduleType, moduleId);
    return deleteParent(trx);
  });
}
