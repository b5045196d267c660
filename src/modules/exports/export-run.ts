import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { messageOf } from '../../kernel/errors.ts';
import type { TaskQueue, WorkerLog } from '../../outbox/worker.ts';
import { newKey, PRIVATE_BUCKET, type Storage } from '../../storage/storage.ts';
import { claimedExport, exportsDue, saveExport } from './exports.repo.ts';
import { workspaceZip } from './workspace-zip.ts';

// E29 in the worker: the ZIP streams into the file store's staging, then into the
// private bucket. A worker killed mid-way leaves only staging bytes (swept with the
// staging leftovers); the export's lease runs out and it starts over, up to three times.

const LEASE_MS = 120_000;
const MAX_STARTS = 3;
/** No cap of its own: a workspace's export is as large as the workspace. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export async function runExport(db: Kysely<DB>, storage: Storage, id: number, owner: string, log?: WorkerLog): Promise<void> {
  const job = await claimedExport(db, id, owner);
  if (!job) return;
  const finish = (values: Parameters<typeof saveExport>[3]) =>
    saveExport(db, id, owner, { ...values, finished_at: now(), updated_at: now(), locked_by: null, locked_until: null });
  if (job.attempts >= MAX_STARTS) {
    await finish({ status: 'failed', failure: `stopped ${job.attempts} times before finishing` });
    return;
  }
  await saveExport(db, id, owner, { status: 'running', attempts: job.attempts + 1, updated_at: now() });
  // The lease is renewed while the ZIP is written, however long that takes.
  const renew = setInterval(() => {
    saveExport(db, id, owner, { locked_until: new Date(Date.now() + LEASE_MS).toISOString() }).catch(() => {});
  }, LEASE_MS / 3);
  try {
    const zip = workspaceZip(db, storage, job.workspace_id);
    const staged = await storage.stage(zip.stream, NO_LIMIT);
    const counts = await zip.counts;
    const key = newKey(job.workspace_id, 'zip');
    await storage.put(staged, PRIVATE_BUCKET, key);
    if (!(await finish({ status: 'done', file_key: key, bytes: staged.size, counts: JSON.stringify(counts) }))) await storage.remove(PRIVATE_BUCKET, key);
  } catch (err) {
    log?.error({ err, export: id }, 'export failed');
    await finish({ status: 'failed', failure: messageOf(err) });
  } finally {
    clearInterval(renew);
  }
}

/** E29's queue for the worker. */
export const exportTask = (db: Kysely<DB>, storage: Storage, log?: WorkerLog): TaskQueue => ({
  table: 'exports',
  ready: exportsDue,
  leaseMs: LEASE_MS,
  maxInFlight: 1,
  run: (id, owner) => runExport(db, storage, id, owner, log),
});
