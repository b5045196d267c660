import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../db/database.ts';
import { inList } from '../db/id-lists.ts';
import type { DB } from '../db/schema.ts';

// The one claim mechanism for every queue the worker drains (outbox rows,
// webhook deliveries, and later emails and SMS). A claim is a lease: the row
// carries who holds it (`locked_by`) and until when (`locked_until`). Whoever
// holds it finishes it with a write conditioned on `locked_by`; a worker that
// dies (kill -9) just lets the lease run out and the row is claimed again, so
// work is done at least once (DESIGN "Rules that hold everywhere").

/** Tables that can be drained: an integer id and the two lease columns. */
export type QueueTable = {
  [K in keyof DB]: DB[K] extends { locked_until: string | null; locked_by: string | null } ? K : never;
}[keyof DB];

export interface ClaimSpec {
  table: QueueTable;
  /** Who claims: a worker's own random id. */
  owner: string;
  /** The rows that are due, apart from the lease, e.g. sql`processed_at is null`. */
  ready: (now: string) => RawBuilder<SqlBool>;
  /** Column that orders the claim (oldest first). */
  orderBy: string;
  limit: number;
  leaseMs: number;
}

/**
 * Takes up to `limit` due rows that nobody holds (or whose holder's lease ran out)
 * and returns their ids. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets any number of
 * workers claim at once without waiting on or taking each other's rows; SQLite
 * serializes writers, so the single UPDATE is already atomic there.
 */
export async function claim(db: Kysely<DB>, dialect: Dialect, spec: ClaimSpec): Promise<number[]> {
  if (spec.limit <= 0) return [];
  const at = Date.now();
  const now = new Date(at).toISOString();
  const until = new Date(at + spec.leaseMs).toISOString();
  const table = sql.table(spec.table);
  const skipLocked = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<{ id: number }>`
    update ${table} set locked_until = ${until}, locked_by = ${spec.owner}
    where id in (
      select id from ${table}
      where (${spec.ready(now)}) and (locked_until is null or locked_until < ${now})
      order by ${sql.ref(spec.orderBy)}
      limit ${spec.limit}
      ${skipLocked}
    )
    returning id`.execute(db);
  return rows.map((r) => r.id).sort((a, b) => a - b); // RETURNING keeps no order
}

/** Gives rows back unfinished (graceful shutdown): they are claimable at once. */
export async function release(db: Kysely<DB>, table: QueueTable, owner: string, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await sql`
    update ${sql.table(table)} set locked_until = null, locked_by = null
    where locked_by = ${owner} and id in (${sql.join(inList(ids))})`.execute(db);
}
