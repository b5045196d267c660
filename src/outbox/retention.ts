import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/schema.ts';

// RETENTION (docs/operations.md "Retention"): what is finished and older than the
// retention period goes, in small batches. Each batch is one short autocommit
// DELETE of at most PRUNE_BATCH rows (their attempts go with them by cascade), with
// a pause between batches, so no lock is held long and API writes (SQLite's one
// writer included) get their turn. Deleting is idempotent: several workers pruning
// at once only share the work (PostgreSQL: SKIP LOCKED, no waiting on each other).

export const PRUNE_BATCH = 1000;

export interface PruneCounts {
  webhook_deliveries: number;
  messages: number;
  outbox: number;
  idempotency_keys: number;
  deletions: number;
  hub_links: number;
  sessions: number;
  auth_links: number;
}

/** E13: deletion entries are kept 90 days (F84), whatever RETENTION says. */
export const DELETIONS_KEPT_MS = 90 * 86_400_000;

export interface PruneOptions {
  batch?: number;
  /** Pause between two batches. */
  pauseMs?: number;
  /** Checked between batches: a stopping worker stops pruning at once. */
  shouldStop?: () => boolean;
  /** E13: deletion entries made before this go; default 90 days before now. */
  deletionsCutoffMs?: number;
}

type PrunedTable = Exclude<keyof PruneCounts, 'idempotency_keys'>;

/**
 * Deletes, oldest first: delivered webhook deliveries (and their attempts) delivered
 * before `cutoffMs`; sent or failed customer messages last updated before it; outbox
 * rows processed before it that no delivery still needs (a pending or failed
 * delivery keeps its event); deletion entries (E13) older than 90 days; customer hub
 * links (E7), sessions and setup or reset links (A1) that expired before it;
 * idempotency records expired before it. Pending work
 * is never touched.
 */
export async function pruneOld(db: Kysely<DB>, dialect: Dialect, cutoffMs: number, opts: PruneOptions = {}): Promise<PruneCounts> {
  const cutoff = new Date(cutoffMs).toISOString();
  const deletionsCutoff = new Date(opts.deletionsCutoffMs ?? Date.now() - DELETIONS_KEPT_MS).toISOString();
  const batch = opts.batch ?? PRUNE_BATCH;
  const pauseMs = opts.pauseMs ?? 5;
  const which: Record<PrunedTable, RawBuilder<SqlBool>> = {
    webhook_deliveries: sql`status = 'delivered' and delivered_at < ${cutoff}`,
    messages: sql`status in ('sent', 'failed') and updated_at < ${cutoff}`,
    // After the deliveries: the ones just pruned no longer hold their outbox row.
    outbox: sql`processed_at is not null and processed_at < ${cutoff}
      and not exists (select 1 from webhook_deliveries d where d.outbox_id = outbox.id)`,
    deletions: sql`deleted_at < ${deletionsCutoff}`,
    // E7: every customer message mints a link; one that expired before the cutoff opens nothing.
    hub_links: sql`expires_at < ${cutoff}`,
    // A1: sessions past their absolute expiry, setup and reset links past theirs (used ones included).
    sessions: sql`expires_at < ${cutoff}`,
    auth_links: sql`expires_at < ${cutoff}`,
  };
  const skipLocked = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const counts: PruneCounts = { webhook_deliveries: 0, messages: 0, outbox: 0, idempotency_keys: 0, deletions: 0, hub_links: 0, sessions: 0, auth_links: 0 };
  for (const table of Object.keys(which) as PrunedTable[]) {
    for (;;) {
      if (opts.shouldStop?.()) return counts;
      // Ordered by id: old rows have the low ids, so the scan finds them first.
      const result = await sql`
        delete from ${sql.table(table)} where id in (
          select id from ${sql.table(table)} where ${which[table]} order by id limit ${batch} ${skipLocked}
        )`.execute(db);
      const n = Number(result.numAffectedRows ?? 0n);
      counts[table] += n;
      if (n < batch) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  // Idempotency records (E11) that expired before the cutoff; their key has no id column.
  for (;;) {
    if (opts.shouldStop?.()) return counts;
    const result = await sql`
      delete from idempotency_keys where (workspace_id, key_id, idem_key) in (
        select workspace_id, key_id, idem_key from idempotency_keys where expires_at < ${cutoff} limit ${batch} ${skipLocked}
      )`.execute(db);
    const n = Number(result.numAffectedRows ?? 0n);
    counts.idempotency_keys += n;
    if (n < batch) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return counts;
}
