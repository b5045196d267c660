import type { Kysely, Selectable } from 'kysely';
import type { DB, IdempotencyKeysTable } from './schema.ts';

// E11's records (0012). The HTTP side (src/http/idempotency.ts) decides; these are its statements.

export type IdempotencyRecord = Selectable<IdempotencyKeysTable>;

/** One record: an Idempotency-Key of one API key (keys are per API key, E11). */
export interface RecordId {
  workspaceId: number;
  keyId: number;
  key: string;
}

/** What a request claims: its parameters and its lease. */
export interface Claim {
  method: string;
  path: string;
  bodyHash: string;
  lockedBy: string;
  lockedUntil: string;
  createdAt: string;
  expiresAt: string;
}

const byId = (id: RecordId) => ({ workspace_id: id.workspaceId, key_id: id.keyId, idem_key: id.key });

function claimValues(claim: Claim) {
  return {
    method: claim.method,
    path: claim.path,
    body_hash: claim.bodyHash,
    state: 'running',
    status: null,
    response: null,
    locked_by: claim.lockedBy,
    locked_until: claim.lockedUntil,
    created_at: claim.createdAt,
    expires_at: claim.expiresAt,
  };
}

/** Inserts the record as `running` unless the key has one: true when this request got it. */
export async function insertClaim(db: Kysely<DB>, id: RecordId, claim: Claim): Promise<boolean> {
  const r = await db
    .insertInto('idempotency_keys')
    .values({ ...byId(id), ...claimValues(claim) })
    .onConflict((oc) => oc.columns(['workspace_id', 'key_id', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function findRecord(db: Kysely<DB>, id: RecordId): Promise<IdempotencyRecord | undefined> {
  const k = byId(id);
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('workspace_id', '=', k.workspace_id)
    .where('key_id', '=', k.key_id)
    .where('idem_key', '=', k.idem_key)
    .executeTakeFirst();
}

/**
 * Replaces a record that is as `seen` (an expired one, or a `running` one whose lease
 * ran out): conditional on its holder and state, so of two requests taking it over one
 * wins, and a slow holder that completed it meanwhile keeps it (PostgreSQL re-checks
 * the condition once that commit releases the row).
 */
export async function takeOver(db: Kysely<DB>, seen: IdempotencyRecord, claim: Claim): Promise<boolean> {
  const r = await db
    .updateTable('idempotency_keys')
    .set(claimValues(claim))
    .where('workspace_id', '=', seen.workspace_id)
    .where('key_id', '=', seen.key_id)
    .where('idem_key', '=', seen.idem_key)
    .where('locked_by', '=', seen.locked_by)
    .where('state', '=', seen.state)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Records the response: `done`, if this request (`lockedBy`) still holds the key.
 * `onlyRunning` keeps a response already stored in the effect's transaction.
 */
export async function completeRecord(
  db: Kysely<DB>,
  id: RecordId,
  lockedBy: string,
  status: number,
  response: string,
  onlyRunning: boolean,
): Promise<boolean> {
  const k = byId(id);
  let q = db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status, response })
    .where('workspace_id', '=', k.workspace_id)
    .where('key_id', '=', k.key_id)
    .where('idem_key', '=', k.idem_key)
    .where('locked_by', '=', lockedBy);
  if (onlyRunning) q = q.where('state', '=', 'running');
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Forgets a claim that stored nothing (a 5xx or 429), so a retry runs. */
export async function releaseClaim(db: Kysely<DB>, id: RecordId, lockedBy: string): Promise<void> {
  const k = byId(id);
  await db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', k.workspace_id)
    .where('key_id', '=', k.key_id)
    .where('idem_key', '=', k.idem_key)
    .where('locked_by', '=', lockedBy)
    .where('state', '=', 'running')
    .execute();
}

/** Records expired before `before` (the daily run's RETENTION pruning). Returns how many went. */
export async function pruneIdempotencyKeys(db: Kysely<DB>, before: string): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
