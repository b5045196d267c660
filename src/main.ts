import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDb } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { dailyJobs } from './modules/daily-jobs.ts';
import { Worker } from './outbox/worker.ts';
import { connectRedis } from './redis.ts';

// start: config -> db -> migrate -> app -> listen (-> worker, with the webhooks work)
const config = loadConfig();
const database = createDb(config.databaseUrl);
await migrate(database);
const redis = connectRedis(config.redisUrl);
const app = await buildApp({ config, database, redis });

const address = await app.listen({ port: config.port, host: config.host });
if (!process.env.PUBLIC_URL && config.port === 0) config.publicUrl = `http://localhost:${new URL(address).port}`;
app.log.info(`Fieldwork listening on ${address}`);

// WORKER=embedded: this process also delivers webhooks; with `off`, `fieldwork worker` processes do.
const worker = config.worker === 'embedded' ? new Worker({ db: database.db, dialect: database.dialect, config, log: app.log, daily: dailyJobs }) : null;
worker?.start();

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: shutting down`);
    // The worker finishes or gives back what it holds before the database goes.
    await Promise.all([app.close(), worker?.stop()]);
    await database.close();
    redis?.disconnect();
    process.exit(0);
  });
}
