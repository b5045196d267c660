import { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { createDb } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { backgroundTasks } from '../modules/background.ts';
import { dailyJobs } from '../modules/daily-jobs.ts';
import { Worker, type WorkerLog } from '../outbox/worker.ts';
import { messageOf } from '../kernel/errors.ts';
import { currentIo } from './common.ts';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** One JSON line per entry on stdout, like the server's pino lines, from LOG_LEVEL up. */
function lineLog(level: string): WorkerLog {
  const min = Math.max(0, LEVELS.indexOf(level));
  const write = (name: string) => (obj: object, msg: string) => {
    if (LEVELS.indexOf(name) < min) return;
    const entry: Record<string, unknown> = { level: name, time: new Date().toISOString(), msg, ...obj };
    if ('err' in entry) entry.err = messageOf(entry.err);
    currentIo().out(`${JSON.stringify(entry)}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** `fieldwork worker`: webhook deliveries, customer emails and SMS, and the daily jobs, without HTTP, until SIGTERM or SIGINT. */
export function workerCommand(): Command {
  return new Command('worker').description('deliver webhooks, emails and SMS and run the daily jobs until stopped (run the API with WORKER=off)').action(async () => {
    const config = loadConfig();
    const database = createDb(config.databaseUrl);
    try {
      await migrate(database);
      const log = lineLog(config.logLevel);
      const worker = new Worker({ db: database.db, dialect: database.dialect, config, log, daily: dailyJobs, tasks: backgroundTasks(database.db, config, log), retentionMs: config.retention });
      worker.start();
      log.info({ worker: worker.id, database: database.dialect }, 'Fieldwork worker started');
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      log.info({ worker: worker.id }, 'stopping: finishing the deliveries in flight');
      await worker.stop();
      log.info({ worker: worker.id }, 'Fieldwork worker stopped');
    } finally {
      await database.close().catch(() => {});
    }
  });
}
