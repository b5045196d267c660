import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// What the queues hold, read from the database so that every process (an API
// with WORKER=off included) reports the same figures: /metrics (src/http/metrics.ts).

export interface QueueStats {
  /** Webhook deliveries by status (pending | delivered | failed). */
  deliveries: { status: string; n: number }[];
  /** Customer messages by channel and status (queued | sent | not_sent | failed). */
  messages: { channel: string; status: string; n: number }[];
  /** Rows due now and not yet done, per queue. */
  due: { queue: 'outbox' | 'webhook_deliveries' | 'messages'; n: number }[];
}

export async function queueStats(db: Kysely<DB>, nowMs = Date.now()): Promise<QueueStats> {
  const now = new Date(nowMs).toISOString();
  const n = sql<number>`count(*)`.as('n');
  const [deliveries, messages, outbox, dueDeliveries, dueMessages] = await Promise.all([
    db.selectFrom('webhook_deliveries').select(['status', n]).groupBy('status').execute(),
    db.selectFrom('messages').select(['channel', 'status', n]).groupBy(['channel', 'status']).execute(),
    // The partial indexes outbox_unprocessed, webhook_deliveries_next and messages_next (0021) cover these.
    db.selectFrom('outbox').select(n).where('processed_at', 'is', null).executeTakeFirstOrThrow(),
    db.selectFrom('webhook_deliveries').select(n).where('status', '=', 'pending').where('next_attempt_at', '<=', now).executeTakeFirstOrThrow(),
    db.selectFrom('messages').select(n).where('status', '=', 'queued').where('next_attempt_at', '<=', now).executeTakeFirstOrThrow(),
  ]);
  return {
    deliveries: deliveries.map((r) => ({ status: r.status, n: Number(r.n) })),
    messages: messages.map((r) => ({ channel: r.channel, status: r.status, n: Number(r.n) })),
    due: [
      { queue: 'outbox', n: Number(outbox.n) },
      { queue: 'webhook_deliveries', n: Number(dueDeliveries.n) },
      { queue: 'messages', n: Number(dueMessages.n) },
    ],
  };
}
