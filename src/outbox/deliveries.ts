import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inList } from '../db/id-lists.ts';
import { now } from '../db/json.ts';
import { type ListParams, type ListSpec, listOf } from '../db/list-query.ts';
import type { DB } from '../db/schema.ts';

// Webhook deliveries: one per (outbox event, subscription), retried until it is
// delivered or has used its attempts; every attempt is logged.

/** SPEC Limits: 5 attempts per delivery. */
export const MAX_ATTEMPTS = 5;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Turns claimed outbox rows into deliveries, one per active subscription of the
 * row's workspace and event, and marks the rows processed, in one transaction:
 * either every delivery of an event exists or the event is still unprocessed.
 * The unique (outbox_id, subscription_id) makes a second run harmless.
 */
export async function fanOut(db: Kysely<DB>, owner: string, ids: number[]): Promise<number> {
  if (!ids.length) return 0;
  return db.transaction().execute(async (trx) => {
    const events = await trx.selectFrom('outbox').select(['id', 'workspace_id', 'event']).where('id', 'in', inList(ids)).where('locked_by', '=', owner).execute();
    if (!events.length) return 0;
    const workspaces = [...new Set(events.map((e) => e.workspace_id))];
    const subscriptions = await trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'workspace_id', 'trigger_event'])
      .where('workspace_id', 'in', inList(workspaces))
      .where('is_active', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
    const at = now();
    const rows = events.flatMap((e) =>
      subscriptions
        .filter((s) => s.workspace_id === e.workspace_id && s.trigger_event === e.event)
        .map((s) => ({
          workspace_id: e.workspace_id,
          subscription_id: s.id,
          outbox_id: e.id,
          event: e.event,
          webhook_id: randomUUID(),
          status: 'pending',
          attempts: 0,
          max_attempts: MAX_ATTEMPTS,
          next_attempt_at: at, // attempt 1 is immediate (SPEC)
          created_at: at,
          updated_at: at,
        })),
    );
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 100))
        .onConflict((oc) => oc.columns(['workspace_id', 'outbox_id', 'subscription_id']).doNothing())
        .execute();
    }
    const triggered = [...new Set(rows.map((r) => r.subscription_id))];
    if (triggered.length) {
      await trx.updateTable('webhook_subscriptions').set({ last_triggered_at: at }).where('id', 'in', inList(triggered)).execute();
    }
    await trx
      .updateTable('outbox')
      .set({ processed_at: at, locked_until: null, locked_by: null })
      .where(
        'id',
        'in',
        inList(events.map((e) => e.id)),
      )
      .where('locked_by', '=', owner)
      .execute();
    return rows.length;
  });
}

/** What an attempt needs: the deliveries this worker holds, their subscriptions and events. */
export async function loadDeliveries(db: Kysely<DB>, owner: string, ids: number[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', (j) => j.onRef('s.id', '=', 'd.subscription_id').onRef('s.workspace_id', '=', 'd.workspace_id'))
    .innerJoin('outbox as o', (j) => j.onRef('o.id', '=', 'd.outbox_id').onRef('o.workspace_id', '=', 'd.workspace_id'))
    .select([
      'd.id',
      'd.workspace_id',
      'd.event',
      'd.webhook_id',
      'd.attempts',
      'd.max_attempts',
      's.webhook_url',
      's.secret',
      's.is_active',
      's.deleted_at',
      'o.payload',
    ])
    .where('d.id', 'in', inList(ids))
    .where('d.locked_by', '=', owner)
    .where('d.status', '=', 'pending')
    .execute();
}
export type DeliveryToSend = Awaited<ReturnType<typeof loadDeliveries>>[number];

export interface AttemptOutcome {
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** ms before the next attempt; null = no more attempts. */
  retryInMs: number | null;
}

/** Logs the attempt and moves the delivery on; the delivery changes only while this worker holds it. */
export async function recordAttempt(db: Kysely<DB>, owner: string, d: { id: number; workspace_id: number }, o: AttemptOutcome): Promise<void> {
  const at = now();
  const status: DeliveryStatus = o.ok ? 'delivered' : o.retryInMs === null ? 'failed' : 'pending';
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values({
        workspace_id: d.workspace_id,
        delivery_id: d.id,
        attempt: o.attempt,
        status_code: o.statusCode,
        error: o.error,
        duration_ms: o.durationMs,
        worker: owner,
        created_at: at,
      })
      .execute();
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempts: o.attempt,
        last_status_code: o.statusCode,
        last_error: o.error,
        next_attempt_at: status === 'pending' ? new Date(Date.now() + (o.retryInMs ?? 0)).toISOString() : null,
        delivered_at: o.ok ? at : null,
        locked_until: null,
        locked_by: null,
        updated_at: at,
      })
      .where('id', '=', d.id)
      .where('workspace_id', '=', d.workspace_id)
      .where('locked_by', '=', owner)
      .execute();
  });
}

/** A delivery whose subscription was removed before it went out: it is not sent. */
export async function abandon(db: Kysely<DB>, owner: string, d: { id: number; workspace_id: number }, reason: string): Promise<void> {
  const at = now();
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, next_attempt_at: null, locked_until: null, locked_by: null, updated_at: at })
    .where('id', '=', d.id)
    .where('workspace_id', '=', d.workspace_id)
    .where('locked_by', '=', owner)
    .execute();
}

export interface DeliveryView {
  id: number;
  webhook_id: string;
  subscription_id: number;
  event: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface AttemptView {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

const viewColumns = [
  'id',
  'webhook_id',
  'subscription_id',
  'event',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'next_attempt_at',
  'created_at',
  'delivered_at',
] as const;

/** The delivery log of a workspace, newest first (docs/operator.md `webhook deliveries`). */
export async function listDeliveries(
  db: Kysely<DB>,
  workspaceId: number,
  filter: { subscriptionId?: number; status?: DeliveryStatus; limit?: number } = {},
): Promise<DeliveryView[]> {
  let q = db.selectFrom('webhook_deliveries').select(viewColumns).where('workspace_id', '=', workspaceId);
  if (filter.subscriptionId !== undefined) q = q.where('subscription_id', '=', filter.subscriptionId);
  if (filter.status) q = q.where('status', '=', filter.status);
  return q
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 1000)
    .execute();
}

const deliverySpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', created_at: 'created_at', updated_at: 'updated_at', next_attempt_at: 'next_attempt_at', delivered_at: 'delivered_at' },
  search: ['event', 'webhook_id'],
};
export const DELIVERY_SORT = ['id', 'created_at', 'next_attempt_at', 'delivered_at'] as const;

const deliveryList = listOf(deliverySpec, (db, f: { ws: number; subscription_id?: number; status?: DeliveryStatus; event?: string }) => {
  let qb = db.selectFrom('webhook_deliveries').select(viewColumns).where('workspace_id', '=', f.ws);
  if (f.subscription_id !== undefined) qb = qb.where('subscription_id', '=', f.subscription_id);
  if (f.status) qb = qb.where('status', '=', f.status);
  if (f.event) qb = qb.where('event', '=', f.event);
  return qb;
});

/** GET /api/v1/webhook-deliveries: the same log as a page (D1 order, E12 filters). */
export function listDeliveryPage(
  db: Kysely<DB>,
  workspaceId: number,
  q: ListParams & { subscription_id?: number; status?: DeliveryStatus; event?: string },
) {
  return deliveryList(db, { ws: workspaceId, subscription_id: q.subscription_id, status: q.status, event: q.event }, q);
}

/** One delivery of a workspace, or undefined. */
export function findDelivery(db: Kysely<DB>, workspaceId: number, id: number): Promise<DeliveryView | undefined> {
  return db.selectFrom('webhook_deliveries').select(viewColumns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Every attempt of some deliveries of one workspace, in order, by delivery id. */
export async function attemptsOf(db: Kysely<DB>, workspaceId: number, deliveryIds: number[]): Promise<Map<number, AttemptView[]>> {
  const byDelivery = new Map<number, AttemptView[]>(deliveryIds.map((id) => [id, []]));
  for (let i = 0; i < deliveryIds.length; i += 500) {
    const rows = await db
      .selectFrom('webhook_attempts')
      .select(['delivery_id', 'attempt', 'status_code', 'error', 'duration_ms', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .where('delivery_id', 'in', inList(deliveryIds.slice(i, i + 500)))
      .orderBy('id')
      .execute();
    for (const { delivery_id, ...attempt } of rows) byDelivery.get(delivery_id)?.push(attempt);
  }
  return byDelivery;
}

/**
 * Queues one more attempt of a delivery, whatever its status (docs/operator.md
 * `webhook redeliver`): due now, with the same webhook_id. A pending delivery
 * keeps its remaining retries; a finished one gets exactly one more attempt.
 */
export async function redeliver(db: Kysely<DB>, id: number, workspaceId?: number): Promise<DeliveryView | null> {
  // The API names the caller's workspace (another's delivery is not found); the CLI any delivery.
  let find = db.selectFrom('webhook_deliveries').select(['workspace_id', 'attempts', 'max_attempts']).where('id', '=', id);
  if (workspaceId !== undefined) find = find.where('workspace_id', '=', workspaceId);
  const current = await find.executeTakeFirst();
  if (!current) return null;
  const at = now();
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: at,
      max_attempts: Math.max(current.max_attempts, current.attempts + 1),
      updated_at: at,
    })
    .where('id', '=', id)
    .where('workspace_id', '=', current.workspace_id)
    .execute();
  return (await db.selectFrom('webhook_deliveries').select(viewColumns).where('id', '=', id).executeTakeFirst()) ?? null;
}
