import type http from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';
import { createDb, type Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { messageOf } from './kernel/errors.ts';
import { builtAppDir } from './http/app-pages.ts';
import { backgroundTasks } from './modules/background.ts';
import { dailyJobs } from './modules/daily-jobs.ts';
import { Worker } from './outbox/worker.ts';
import { connectRedis } from './redis.ts';

// start: config -> db -> migrate -> app -> listen (-> metrics listener, worker).
// Ready = exactly one line on stdout (docs/operator.md "Start"); a start that fails
// prints one line on stderr, no stack trace, and exits with 1.

/** In-flight requests get this long to finish after SIGTERM; then their connections are cut. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function fail(message: string): never {
  process.stderr.write(`fieldwork: cannot start: ${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  fail(messageOf(err));
}

let database: Database;
try {
  database = createDb(config.databaseUrl, { checkpointThread: true }); // F200: SQLite's checkpoints off the API's thread
  await migrate(database);
} catch (err) {
  fail(`database ${shown(config.databaseUrl)} did not answer: ${messageOf(err)}`);
}

const redis: Redis | null = connectRedis(config.redisUrl);
let app: FastifyInstance;
let address: string;
let metricsServer: http.Server | null = null;
try {
  app = await buildApp({ config, database, redis, appDir: builtAppDir(import.meta.dirname) });
  // Fastify logs one line per listening address itself; the ready line below is the only one.
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } finally {
    app.log.level = level;
  }
  if (config.metricsPort !== null && app.metrics) {
    const { serveMetrics } = await import('./http/metrics.ts');
    metricsServer = await serveMetrics(app.metrics, config.host, config.metricsPort);
  }
} catch (err) {
  await database.close().catch(() => {});
  redis?.disconnect();
  fail(messageOf(err));
}
if (!process.env.PUBLIC_URL && config.port === 0) config.publicUrl = `http://localhost:${new URL(address).port}`;
// The address it really listens on (Fastify's answer turns 0.0.0.0 into 127.0.0.1,
// which reads as "local only"), and the base of the links it sends (PUBLIC_URL).
const hostOf = (a: ReturnType<http.Server['address']>) => (a && typeof a === 'object' ? (a.family === 'IPv6' ? `[${a.address}]` : a.address) : new URL(address).hostname);
const listening = app.server.address();
const listenUrl = listening && typeof listening === 'object' ? `http://${hostOf(listening)}:${listening.port}` : address;
const metricsAddress = metricsServer?.address();
const metricsNote = metricsAddress && typeof metricsAddress === 'object' ? `; metrics on http://${hostOf(metricsAddress)}:${metricsAddress.port}/metrics` : '';
app.log.info(`Fieldwork listening on ${listenUrl} (links use ${config.publicUrl})${metricsNote}`);

// WORKER=embedded: this process also delivers webhooks; with `off`, `fieldwork worker` processes do.
const worker = config.worker === 'embedded' ? new Worker({ db: database.db, dialect: database.dialect, config, log: app.log, daily: dailyJobs, tasks: backgroundTasks(database.db, config, app.log), retentionMs: config.retention }) : null;
worker?.start();

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: shutting down`);
    // app.close() stops accepting, answers 503 to new requests on open connections and
    // waits for the requests in flight; past the timeout their connections are cut.
    const timer = setTimeout(() => {
      app.log.warn(`requests still in flight after ${SHUTDOWN_TIMEOUT_MS} ms: closing their connections`);
      app.server.closeAllConnections();
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    // The worker finishes or gives back what it holds before the database goes.
    await Promise.all([app.close(), worker?.stop(), new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(null)))]);
    clearTimeout(timer);
    await database.close();
    redis?.disconnect();
    app.log.info('stopped');
    // pino writes asynchronously: the process ends by itself once the last lines are out,
    // or after a second if some handle still holds it open.
    process.exitCode = 0;
    setTimeout(() => process.exit(0), 1000).unref();
  });
}
