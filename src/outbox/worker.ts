import { randomUUID } from 'node:crypto';
import type { Kysely, RawBuilder, SqlBool } from 'kysely';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import { fromJson } from '../db/json.ts';
import type { DB } from '../db/schema.ts';
import { claim, type QueueTable, release } from './claim.ts';
import { abandon, type DeliveryToSend, fanOut, loadDeliveries, recordAttempt } from './deliveries.ts';
import { httpPost, sign, timestampedSignature } from './http-post.ts';
import { DELETIONS_KEPT_MS, pruneOld } from './retention.ts';
import { loadMessages, MAX_MESSAGE_ATTEMPTS, type MessageToSend, recordOutcome } from './messages.ts';
import { Senders } from './senders.ts';

// The worker (DESIGN "The picture"): fans outbox rows out into webhook
// deliveries, drains the queues (webhook deliveries, customer emails and SMS),
// and runs the daily jobs. It runs inside the server (WORKER=embedded) or as
// `fieldwork worker` processes; on PostgreSQL any number of them share the
// queues (claim.ts) and the daily runs (schedule.ts), on SQLite one.

export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A daily job's pass over the workspaces whose local day has begun (see schedule.ts `runDaily`); returns how many it ran. */
export type DailyJob = (db: Kysely<DB>, nowMs: number, log: WorkerLog | undefined, config: WorkerOptions['config']) => Promise<number>;

export interface WorkerOptions {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Read at every attempt: main.ts fills in publicUrl once the port is known. */
  config: Pick<
    Config,
    'publicUrl' | 'hubLinkTtl' | 'recurringHorizonDays' | 'webhookRetrySchedule' | 'webhookTimeout' | 'webhookAllowPrivateUrls' | 'smtpUrl' | 'mailFrom' | 'messageRetrySchedule' | 'messageTimeout'
  >;
  log?: WorkerLog;
  /** Deliveries and messages in flight at once. */
  concurrency?: number;
  /** How often an idle worker looks for work. */
  pollMs?: number;
  /** How often the daily jobs look for workspaces whose local day has begun. */
  scheduleMs?: number;
  /** The daily jobs, given by whoever starts the worker (src/modules/daily-jobs.ts). */
  daily?: readonly DailyJob[];
  /** RETENTION in ms: once a day (UTC) the worker prunes what is finished and older (retention.ts); unset = never. */
  retentionMs?: number;
  /** Long tasks kept as durable rows (E28 imports, E29 exports), given by whoever starts the worker (src/modules/background.ts). */
  tasks?: readonly TaskQueue[];
}

/**
 * A table of long tasks a module hands the worker: its rows are claimed like any queue
 * (a lease, taken again when a killed worker's runs out) in id order, at most
 * `maxInFlight` at once per worker. `run` keeps its lease alive while it works (`renew`).
 */
export interface TaskQueue {
  table: QueueTable;
  ready: (now: string) => RawBuilder<SqlBool>;
  leaseMs: number;
  maxInFlight: number;
  run(id: number, owner: string): Promise<void>;
}

/** What the outbox holds for an event (emit.ts); the delivery adds `meta`. */
interface StoredPayload {
  event: string;
  workspace_id: number;
  timestamp: string;
  data: { id: number };
  link_path: string;
}

/** A table the worker drains: which rows are due, and how one claimed row is done. */
interface Queue {
  table: QueueTable;
  ready: (now: string) => RawBuilder<SqlBool>;
  /** Longer than any one attempt can take, so a live worker never loses what it holds. */
  leaseMs: number;
  orderBy?: string;
  /** At most this many of the queue's rows in flight (default: the worker's free slots). */
  maxInFlight?: number;
  /** The claimed rows still to do (loaded once for the batch), each as a job. */
  start(ids: number[]): Promise<{ id: number; run: () => Promise<void> }[]>;
}

function queue<T extends { id: number }>(q: Omit<Queue, 'start'> & { load(ids: number[]): Promise<T[]>; handle(row: T): Promise<void> }): Queue {
  return { ...q, start: async (ids) => (await q.load(ids)).map((row) => ({ id: row.id, run: () => q.handle(row) })) };
}

/** Delay before attempt n + 1 (n >= 1); a schedule shorter than the attempts repeats its last delay. */
const retryDelay = (schedule: number[], attempt: number) => schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 0;

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
  private readonly scheduleMs: number;
  private readonly daily: readonly DailyJob[];
  private readonly senders: Senders;
  private readonly queues: Queue[];
  private readonly inFlight = new Map<string, Promise<void>>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private lastScheduled = 0;
  private readonly retentionMs: number | null;
  /** The UTC date of this process's last pruning pass, and the pass under way. */
  private prunedOn = '';
  private pruning: Promise<void> | null = null;

  constructor(opts: WorkerOptions) {
    this.db = opts.db;
    this.dialect = opts.dialect;
    this.config = opts.config;
    this.log = opts.log ?? silent;
    this.concurrency = opts.concurrency ?? 32;
    this.pollMs = opts.pollMs ?? 200;
    this.scheduleMs = opts.scheduleMs ?? 60_000;
    this.daily = opts.daily ?? [];
    this.retentionMs = opts.retentionMs ?? null;
    this.senders = new Senders(opts.config);
    this.queues = [
      queue({
        table: 'webhook_deliveries',
        ready: (now) => sql`status = 'pending' and next_attempt_at <= ${now}`,
        leaseMs: opts.config.webhookTimeout * 2 + 5_000,
        load: (ids) => loadDeliveries(this.db, this.id, ids),
        handle: (d) => this.deliverWebhook(d),
      }),
      queue({
        table: 'messages',
        ready: (now) => sql`status = 'queued' and next_attempt_at <= ${now}`,
        leaseMs: opts.config.messageTimeout * 3 + 5_000, // an attempt takes at most 2 x MESSAGE_TIMEOUT (senders.ts)
        load: (ids) => loadMessages(this.db, this.id, ids),
        handle: (m) => this.sendMessage(m),
      }),
      ...(opts.tasks ?? []).map(
        (task): Queue => ({
          table: task.table,
          ready: task.ready,
          leaseMs: task.leaseMs,
          orderBy: 'id',
          maxInFlight: task.maxInFlight,
          start: async (ids) => ids.map((id) => ({ id, run: () => task.run(id, this.id) })),
        }),
      ),
    ];
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
   * bounded by its timeout) and gives back anything still held.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    this.loop = null;
    await this.pruning;
    await this.drain();
    this.senders.close();
  }

  /** One pass, for tests and the benchmark: fan out, then start what is due. Returns how much it found. */
  async tick(): Promise<number> {
    let found = await this.fanOutOnce();
    for (const q of this.queues) found += await this.startDue(q);
    return found;
  }

  /** The daily jobs' pass (e.g. D22 `appointments_soon`); the loop runs it every `scheduleMs`. */
  async runScheduled(nowMs = Date.now()): Promise<number> {
    let ran = 0;
    for (const job of this.daily) ran += await job(this.db, nowMs, this.log, this.config);
    return ran;
  }

  /**
   * RETENTION: one global pass over every workspace, not a per-workspace daily job
   * (runDaily's one transaction per workspace would hold a big workspace's locks for
   * its whole backlog). Each process prunes at start and then once per UTC day; the
   * pass runs beside the queues, never blocking them. Returns the pass (tests await it).
   */
  prune(nowMs = Date.now()): Promise<void> {
    if (this.retentionMs === null) return Promise.resolve();
    if (this.pruning) return this.pruning;
    this.prunedOn = new Date(nowMs).toISOString().slice(0, 10);
    const started = Date.now();
    this.pruning = pruneOld(this.db, this.dialect, nowMs - this.retentionMs, { shouldStop: () => this.stopping, deletionsCutoffMs: nowMs - DELETIONS_KEPT_MS })
      .then((counts) => {
        if (counts.webhook_deliveries + counts.messages + counts.outbox + counts.deletions) this.log.info({ pruned: counts, ms: Date.now() - started }, 'retention: pruned old rows');
      })
      .catch((err) => {
        this.prunedOn = ''; // tried again at the next pass
        this.log.error({ err }, 'retention pruning failed');
      })
      .finally(() => {
        this.pruning = null;
      });
    return this.pruning;
  }

  /** Resolves once every job started so far has finished. */
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
        if (Date.now() - this.lastScheduled >= this.scheduleMs) {
          this.lastScheduled = Date.now();
          await this.runScheduled();
          if (this.retentionMs !== null && this.prunedOn !== new Date().toISOString().slice(0, 10)) void this.prune();
        }
        found = await this.tick();
      } catch (err) {
        this.log.error({ err }, 'worker pass failed');
      }
      if (this.stopping) break;
      if (this.inFlight.size > lowWater) await Promise.race([this.freed(lowWater), this.sleep(this.pollMs)]);
      else if (!found) await this.sleep(this.pollMs);
    }
  }

  private settled: (() => void) | null = null;

  /** Resolves when at most `n` jobs are in flight. */
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
      leaseMs: this.config.webhookTimeout * 2 + 5_000,
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

  /** Claims as many due rows of `q` as there are free slots and starts them. */
  private async startDue(q: Queue): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    const own = q.maxInFlight === undefined ? free : q.maxInFlight - [...this.inFlight.keys()].filter((k) => k.startsWith(`${q.table}:`)).length;
    const ids = await claim(this.db, this.dialect, {
      table: q.table,
      owner: this.id,
      ready: q.ready,
      orderBy: q.orderBy ?? 'next_attempt_at',
      limit: Math.min(free, own),
      leaseMs: q.leaseMs,
    });
    if (!ids.length) return 0;
    let jobs: Awaited<ReturnType<Queue['start']>>;
    try {
      jobs = await q.start(ids);
    } catch (err) {
      await release(this.db, q.table, this.id, ids).catch(() => {});
      throw err;
    }
    for (const job of jobs) {
      const key = `${q.table}:${job.id}`;
      const p = job
        .run()
        .catch(async (err) => {
          // Given back for another pass; if even that write fails, the lease runs out instead.
          this.log.error({ err, table: q.table, id: job.id }, 'worker job failed');
          await release(this.db, q.table, this.id, [job.id]).catch(() => {});
        })
        .finally(() => {
          this.inFlight.delete(key);
          this.settled?.();
        });
      this.inFlight.set(key, p);
    }
    return ids.length;
  }

  private async deliverWebhook(d: DeliveryToSend): Promise<void> {
    if (d.deleted_at || !d.is_active) return abandon(this.db, this.id, d, 'Subscription removed');
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
    // D15 headers, and E15's signed timestamp (the same second as X-Service-Timestamp).
    const sentAt = Math.floor(Date.now() / 1000);
    const result = await httpPost(
      d.webhook_url,
      body,
      {
        'content-type': 'application/json',
        'user-agent': 'Fieldwork-Webhooks/1.0',
        'x-service-signature': sign(d.secret, body),
        'x-service-event': d.event,
        'x-service-delivery': d.webhook_id,
        'x-service-timestamp': String(sentAt),
        'fieldwork-signature': timestampedSignature(d.secret, sentAt, body),
      },
      { timeoutMs: this.config.webhookTimeout, allowPrivate: this.config.webhookAllowPrivateUrls },
    );
    // WEBHOOK_RETRY_SCHEDULE holds the delays before attempts 2..5.
    const retryInMs = result.ok || attempt >= d.max_attempts ? null : retryDelay(this.config.webhookRetrySchedule, attempt);
    await recordAttempt(this.db, this.id, d, { attempt, retryInMs, ...result });
    if (!result.ok) this.log.warn({ delivery: d.id, attempt, status: result.statusCode, error: result.error }, 'webhook attempt failed');
  }

  /** One attempt of a customer email or SMS; temporary failures are retried on MESSAGE_RETRY_SCHEDULE. */
  private async sendMessage(m: MessageToSend): Promise<void> {
    const result = await this.senders.send(m);
    const attempt = m.attempts + 1;
    if (result.status === 'failed' && result.temporary && attempt < MAX_MESSAGE_ATTEMPTS) {
      await recordOutcome(this.db, this.id, m, { status: 'retry', error: result.error, retryInMs: retryDelay(this.config.messageRetrySchedule, attempt) });
    } else {
      await recordOutcome(this.db, this.id, m, { status: result.status, error: result.status === 'sent' ? null : result.error });
    }
    if (result.status === 'failed') this.log.warn({ message: m.id, channel: m.channel, attempt, error: result.error }, 'message attempt failed');
  }
}
