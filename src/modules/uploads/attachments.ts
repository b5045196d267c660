import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import { transact } from '../../http/transact.ts';
import { notFound } from '../../kernel/errors.ts';
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

/**
 * A parent's D12 delete in one transaction (`transact`, E11): its attachments first,
 * then `deleteParent`, which answers whether the parent was there (else 404 `<resource> not found`).
 */
export function deleteWithAttachments(
  db: Kysely<DB>,
  auth: AuthContext,
  moduleType: ModuleType,
  moduleId: number,
  resource: string,
  deleteParent: (trx: Kysely<DB>) => Promise<boolean>,
): Promise<void> {
  return transact(db, auth, async (trx) => {
    await removeAttachments(trx, auth.workspaceId, moduleType, moduleId);
    if (!(await deleteParent(trx))) throw notFound(resource);
  });
}
