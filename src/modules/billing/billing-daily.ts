import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { addDays } from '../../domain/recurrence.ts';
import { type DailyLog, type DailyWorkspace, runDaily } from '../../outbox/schedule.ts';
import { billableJobs } from './billing.repo.ts';
import { billJobs } from './billing.service.ts';

// E22 `monthly`: the first daily run of a month makes, per monthly job, one draft
// invoice for its completed visits not billed yet through the previous month's last
// day. Once per workspace and month, whatever the number of workers, restarts and
// CLI runs: the month's claim row (scheduled_runs, keyed by the month's first day)
// is inserted in the run's transaction, and billJobs bills a visit once anyway.

export const BILLING_DAILY_JOB = 'billing_daily';
const MONTHLY_INVOICES = 'monthly_invoices';

/** The run for one workspace and local date, inside the caller's transaction: the ids of the invoices made. */
export async function runBillingDay(trx: Kysely<DB>, workspace: DailyWorkspace, date: string): Promise<number[]> {
  const month = `${date.slice(0, 7)}-01`;
  const claimed = await trx
    .insertInto('scheduled_runs')
    .values({ workspace_id: workspace.id, job: MONTHLY_INVOICES, run_date: month, created_at: now() })
    .onConflict((oc) => oc.columns(['workspace_id', 'job', 'run_date']).doNothing())
    .returning('workspace_id')
    .executeTakeFirst();
  if (!claimed) return [];
  const through = addDays(month, -1);
  const jobs = await billableJobs(trx, workspace.id, { through, invoicing: 'monthly' });
  const made: number[] = [];
  for await (const invoice of billJobs(trx, workspace.id, null, jobs, { pick: { through }, date })) made.push(invoice.id);
  return made;
}

/** One pass of the daily job (the worker calls it every minute). */
export const runBillingDaily = (db: Kysely<DB>, nowMs: number, log: DailyLog | undefined): Promise<number> =>
  runDaily(
    db,
    BILLING_DAILY_JOB,
    nowMs,
    async (trx, w, date) => {
      await runBillingDay(trx, w, date);
    },
    log,
  );
