import { now } from '../../db/json.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { notFound } from '../../kernel/errors.ts';
import { PRIVATE_BUCKET, type Storage } from '../../storage/storage.ts';
import { type ExportRow, findExport, insertExport } from './exports.repo.ts';
import type { Export } from './exports.schemas.ts';

export async function exportView(row: ExportRow, storage: Storage): Promise<Export> {
  return {
    id: row.id,
    status: row.status as Export['status'],
    bytes: row.bytes,
    counts: row.counts === null ? null : JSON.parse(row.counts),
    download_url: row.status === 'done' && row.file_key ? await storage.url(PRIVATE_BUCKET, row.file_key) : null, // D20: signed, 1 hour
    failure: row.failure,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

export function exportsService({ db }: AppContext, storage: Storage) {
  return {
    /** Queues a whole-workspace export for the worker (202). */
    create: (auth: AuthContext): Promise<Export> =>
      transact(db, auth, async (trx) => {
        const at = now();
        const row = await insertExport(trx, {
          workspace_id: auth.workspaceId,
          status: 'queued',
          created_by: auth.userId,
          attempts: 0,
          created_at: at,
          updated_at: at,
        });
        return exportView(row, storage);
      }),

    async get(auth: AuthContext, id: number): Promise<Export> {
      const row = await findExport(db, auth.workspaceId, id);
      if (!row) throw notFound('Export');
      return exportView(row, storage);
    },
  };
}
