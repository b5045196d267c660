import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { TaskQueue, WorkerLog } from '../outbox/worker.ts';
import { storageFromConfig } from '../storage/drivers.ts';
import { UrlSigner } from '../storage/url-signer.ts';
import { exportTask } from './exports/export-run.ts';
import { importTask } from './imports/import-run.ts';

/** The long tasks the worker claims from their tables (E28 imports, E29 exports); main.ts and `fieldwork worker` hand them over. */
export function backgroundTasks(db: Kysely<DB>, config: Config, log?: WorkerLog): TaskQueue[] {
  const storage = storageFromConfig(config, new UrlSigner(db), () => config.publicUrl);
  return [importTask(db, storage, log), exportTask(db, storage, log)];
}
