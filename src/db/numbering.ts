import type { Kysely } from 'kysely';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

/** D13's documents, and the monthly email count of SPEC Notifications rule 4 (`emails:2026-11`). */
export type NumberKind = 'requests' | 'quotes' | 'jobs' | 'invoices' | `emails:${string}` | `allowance-notice:${string}`;

/**
 * D13: the next number of `kind` in the workspace, 1 for the first. Call it
 * inside the creating transaction: the upsert locks the counter row until
 * commit, so concurrent creates queue on it (unique, in order), and a rolled
 * back create gives its number back (gap-free).
 */
export async function nextNumber(trx: Kysely<DB>, workspaceId: number, kind: NumberKind): Promise<number> {
  const [row] = await nextNumberQuery(trx, { ws: workspaceId, kind });
  return Number(row!.value);
}

// Compiled once: every create of a numbered document runs it (a tenth of its Kysely time).
const nextNumberQuery = prepared({ ws: 'number', kind: 'string' }, (db, p) =>
  db
    .insertInto('counters')
    .values({ workspace_id: p.ws, kind: p.kind, value: 1 })
    .onConflict((oc) => oc.columns(['workspace_id', 'kind']).doUpdateSet((eb) => ({ value: eb('counters.value', '+', 1) })))
    .returning('value'),
);

/**
 * D13 for a batch: `count` consecutive numbers of `kind` in one counter write, the
 * first answered. One lock and one row version per batch rather than per document
 * (F289); the caller uses every number it reserved or rolls back.
 */
export async function reserveNumbers(trx: Kysely<DB>, workspaceId: number, kind: NumberKind, count: number): Promise<number> {
  const row = await trx
    .insertInto('counters')
    .values({ workspace_id: workspaceId, kind, value: count })
    .onConflict((oc) => oc.columns(['workspace_id', 'kind']).doUpdateSet((eb) => ({ value: eb('counters.value', '+', count) })))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value) - count + 1;
}

/**
 * Counts one more `kind` unless the count has reached `limit`: true when counted.
 * The same counter row as nextNumber, so concurrent callers queue on it and never
 * pass the limit; a refused call leaves the count as it was (SPEC Notifications
 * rule 4: a raised allowance frees exactly what it adds).
 */
export async function countWithin(trx: Kysely<DB>, workspaceId: number, kind: NumberKind, limit: number): Promise<boolean> {
  if (limit < 1) return false;
  const row = await trx
    .insertInto('counters')
    .values({ workspace_id: workspaceId, kind, value: 1 })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'kind'])
        .doUpdateSet((eb) => ({ value: eb('counters.value', '+', 1) }))
        .where('counters.value', '<', limit),
    )
    .returning('value')
    .executeTakeFirst();
  return row !== undefined;
}
