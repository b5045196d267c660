import type { Kysely } from 'kysely';
import { now } from '../db/json.ts';
import type { DB } from '../db/schema.ts';
import { isBucket, type Storage } from './storage.ts';

// Bytes follow the database, never the other way round (SPEC Uploads 3): the
// transaction that drops a file's last link deletes its row and queues the bytes
// in `file_deletions`; a sweep removes them after commit. A rolled-back delete
// leaves the queue row unwritten, and a crash leaves it for the next sweep.

/** Queues the bytes of a stored file whose row this transaction deletes. */
export async function queueDeletion(trx: Kysely<DB>, workspaceId: number, bucket: string, key: string): Promise<void> {
  await trx.insertInto('file_deletions').values({ workspace_id: workspaceId, bucket, path: key, created_at: now() }).execute();
}

const wakers = new Set<() => void>();

/**
 * Asks every running sweeper to look at the queue soon. Called from inside a
 * transaction (parent deletes), so sweepers look a few times: the rows become
 * visible only once that transaction commits.
 */
export function requestSweep(): void {
  for (const wake of wakers) wake();
}

const STAGING_MAX_AGE_MS = 60 * 60 * 1000;

export class Sweeper {
  private running: Promise<void> | null = null;
  private again = false;
  private interval: NodeJS.Timeout | null = null;
  private timers = new Map<number, NodeJS.Timeout>();
  private readonly wake = () => {
    for (const ms of [0, 250, 2000]) {
      if (this.timers.has(ms)) continue;
      const timer = setTimeout(() => {
        this.timers.delete(ms);
        void this.run();
      }, ms);
      timer.unref();
      this.timers.set(ms, timer);
    }
  };

  /** Where failures go (the app's logger); a sweep never throws. */
  onError: (err: unknown) => void = () => {};

  constructor(
    private readonly db: Kysely<DB>,
    private readonly storage: Storage,
  ) {}

  /** Removes every queued object; concurrent calls share one pass (plus one more if asked meanwhile). */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.sweepOnce();
        } catch (err) {
          this.onError(err);
        }
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sweepOnce(): Promise<void> {
    let after = 0;
    for (;;) {
      const rows = await this.db.selectFrom('file_deletions').select(['id', 'bucket', 'path']).where('id', '>', after).orderBy('id').limit(200).execute();
      for (const row of rows) {
        after = row.id;
        try {
          if (isBucket(row.bucket)) await this.storage.remove(row.bucket, row.path);
        } catch (err) {
          this.onError(err); // kept in the queue: the next sweep tries again
          continue;
        }
        await this.db.deleteFrom('file_deletions').where('id', '=', row.id).execute();
      }
      if (rows.length < 200) return;
    }
  }

  /** Periodic sweep (covers other processes' and crashed deletes) and staging cleanup. */
  start(intervalMs = 60_000): void {
    if (this.interval) return;
    wakers.add(this.wake);
    const tick = () => {
      void this.run();
      void this.storage.cleanStaging(STAGING_MAX_AGE_MS).catch(this.onError);
    };
    this.interval = setInterval(tick, intervalMs);
    this.interval.unref();
    // What a previous process left queued goes soon after start, not in the middle of it.
    const first = setTimeout(tick, Math.min(5000, intervalMs));
    first.unref();
    this.timers.set(-1, first);
  }

  async stop(): Promise<void> {
    wakers.delete(this.wake);
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.running;
  }
}
