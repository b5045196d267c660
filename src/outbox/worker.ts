import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import { fromJson } from '../db/json.ts';
import type { DB } from '../db/schema.ts';
import { claim, release } from './claim.ts';
import { abandon, type DeliveryToSend, fanOut, loadDeliveries, recordAttempt } from './deliveries.ts';
import { postWebhook, sign } from './webhook-post.ts';

// The worker (DESIGN "The picture"): claims outbox rows and fans them out into
// deliveries, claims due deliveries and POSTs them. It runs inside the server
// (WORKER=embedded) or as `fieldwork worker` processes; on PostgreSQL any number
// of them share the queues (claim.ts), on SQLite one.

export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerOptions {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Read at every attempt: main.ts fills in publicUrl once the port is known. */
  config: Pick<Config, 'publicUrl' | 'webhookRetrySchedule' | 'webhookTimeout' | 'webhookAllowPrivateUrls'>;
  log?: WorkerLog;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** How often an idle worker looks for work. */
  pollMs?: number;
}

/** What the outbox holds for an event (emit.ts); the delivery adds `meta`. */
interface StoredPayload {
  event: string;
  workspace_id: number;
  timestamp: string;
  data: { id: number };
  link_path: string;
}

const silent: WorkerLog = { info() {}, warn() {}, error() {} };
const OUTBOX_BATCH = 200;

export class Worker {
  /** This worker's name on the rows it holds. */
  readonly id = randomUUID();
  private readonly db: Kysely<DB>;
  private readonly dialect: Dialect;
  private readonly config: WorkerOptions['config'];
  private readonly log: WorkerLog;
  private readonly concurrency: number;
  private readonly pollMs: number;
  /** Longer than any one attempt can take, so a live worker never loses what it holds. */
  private readonly leaseMs: number;
  private readonly inFlight = new Map<number, Promise<void>>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;

  constructor(opts: WorkerOptions) {
    this.db = opts.db;
    this.dialect = opts.dialect;
    this.config = opts.config;
    this.log = opts.log ?? silent;
    this.concurrency = opts.concurrency ?? 32;
    this.pollMs = opts.pollMs ?? 200;
    this.leaseMs = opts.config.webhookTimeout * 2 + 5_000;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Look for work now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Graceful shutdown: stops claiming, lets the attempts in flight finish (each is
   * bounded by WEBHOOK_TIMEOUT) and gives back anything still held.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    await this.drain();
  }

  /** One pass, for tests and the benchmark: fan out, then start what is due. Returns how much it found. */
  async tick(): Promise<number> {
    const fanned = await this.fanOutOnce();
    const ids = await claim(this.db, this.dialect, {
      table: 'webhook_deliveries',
      owner: this.id,
      ready: (now) => sql`status = 'pending' and next_attempt_at <= ${now}`,
      orderBy: 'next_attempt_at',
      limit: this.concurrency - this.inFlight.size,
      leaseMs: this.leaseMs,
    });
    if (!ids.length) return fanned;
    let rows: Awaited<ReturnType<typeof loadDeliveries>>;
    try {
      rows = await loadDeliveries(this.db, this.id, ids);
    } catch (err) {
      await release(this.db, 'webhook_deliveries', this.id, ids).catch(() => {});
      throw err;
    }
    for (const d of rows) {
      const p = this.attempt(d).finally(() => {
        this.inFlight.delete(d.id);
        this.settled?.();
      });
      this.inFlight.set(d.id, p);
    }
    return fanned + ids.length;
  }

  /** Resolves once every delivery started so far has finished its attempt. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled(this.inFlight.values());
  }

  private async run(): Promise<void> {
    // Claims go in batches: with the slots more than half full the loop waits for
    // some to free up (or the poll interval) instead of claiming one row at a time.
    const lowWater = Math.floor(this.concurrency / 2);
    while (!this.stopping) {
      let found = 0;
      try {
        found = await this.tick();
      } catch (err) {
        this.log.error({ err }, 'webhook worker pass failed');
      }
      if (this.stopping) break;
      if (this.inFlight.size > lowWater) await Promise.race([this.freed(lowWater), this.sleep(this.pollMs)]);
      else if (!found) await this.sleep(this.pollMs);
    }
  }

  private settled: (() => void) | null = null;

  /** Resolves when at most `n` attempts are in flight. */
  private freed(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.inFlight.size > n && !this.stopping) return;
        if (this.settled === check) this.settled = null;
        resolve();
      };
      this.settled = check;
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wakeUp === done) self.wakeUp = null;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async fanOutOnce(): Promise<number> {
    const ids = await claim(this.db, this.dialect, {
      table: 'outbox',
      owner: this.id,
      ready: () => sql`processed_at is null`,
      orderBy: 'id',
      limit: OUTBOX_BATCH,
      leaseMs: this.leaseMs,
    });
    if (!ids.length) return 0;
    try {
      await fanOut(this.db, this.id, ids);
    } catch (err) {
      await release(this.db, 'outbox', this.id, ids).catch(() => {});
      throw err;
    }
    return ids.length;
  }

  private async attempt(d: DeliveryToSend): Promise<void> {
    const id = d.id;
    try {
      if (d.deleted_at || !d.is_active) {
        await abandon(this.db, this.id, d, 'Subscription removed');
        return;
      }
      const attempt = d.attempts + 1;
      const stored = fromJson<StoredPayload>(d.payload)!;
      // SPEC "Webhook events" payload; D16 meta.link; webhook_id the same on every attempt.
      const body = JSON.stringify({
        event: stored.event,
        workspace_id: stored.workspace_id,
        timestamp: stored.timestamp,
        data: stored.data,
        meta: { webhook_id: d.webhook_id, delivery_attempt: attempt, link: `${this.config.publicUrl}${stored.link_path}` },
      });
      // D15 headers.
      const result = await postWebhook(
        d.webhook_url,
        body,
        {
          'content-type': 'application/json',
          'user-agent': 'Fieldwork-Webhooks/1.0',
          'x-service-signature': sign(d.secret, body),
          'x-service-event': d.event,
          'x-service-delivery': d.webhook_id,
          'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        },
        { timeoutMs: this.config.webhookTimeout, allowPrivate: this.config.webhookAllowPrivateUrls },
      );
      const schedule = this.config.webhookRetrySchedule;
      // WEBHOOK_RETRY_SCHEDULE holds the delays before attempts 2..5; a shorter one repeats its last delay.
      const retryInMs = result.ok || attempt >= d.max_attempts ? null : (schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 0);
      await recordAttempt(this.db, this.id, d, { attempt, retryInMs, ...result });
      if (!result.ok) this.log.warn({ delivery: id, attempt, status: result.statusCode, error: result.error }, 'webhook attempt failed');
    } catch (err) {
      // Given back for another pass; if even that write fails, the lease runs out instead.
      this.log.error({ err, delivery: id }, 'webhook delivery failed');
      await release(this.db, 'webhook_deliveries', this.id, [id]).catch(() => {});
    }
  }
}
