import type { Kysely } from 'kysely';
import { userRefs } from '../../db/references.ts';
import type { DB } from '../../db/schema.ts';
import { addDays, expandRule, MAX_OCCURRENCES } from '../../domain/recurrence.ts';
import { type DailyLog, type DailyWorkspace, runDaily } from '../../outbox/schedule.ts';
import { makeVisits, type SeriesSpan, storedRule, storedSchedule } from './recurring.ts';
import { seriesToExtend, setGeneratedThrough } from './recurring.repo.ts';

// E20: the daily run extends every open series through today plus
// RECURRING_HORIZON_DAYS, once per workspace and local day (D22's runDaily). The
// series are locked, their new visits made in one set-based write for the whole
// workspace; a second run (the CLI, another worker, a restart) finds every series
// made through the horizon already, and the unique key (0024) stops any visit a
// concurrent writer made first.

export const RECURRING_DAILY_JOB = 'recurring_visits';

export interface RecurringDayResult {
  /** Series extended (made through a date before the horizon). */
  series: number;
  visits_created: number;
}

/** The run for one workspace and local date `date`, inside the caller's transaction. */
export async function runRecurringDay(trx: Kysely<DB>, workspace: DailyWorkspace, date: string, horizonDays: number): Promise<RecurringDayResult> {
  const horizon = addDays(date, horizonDays);
  const rows = await seriesToExtend(trx, workspace.id, horizon);
  if (!rows.length) return { series: 0, visits_created: 0 };
  const spans: { span: SeriesSpan; dates: string[] }[] = [];
  const assignees = new Set<string>();
  for (const row of rows) {
    const schedule = storedSchedule(row.schedule);
    if (!schedule || !row.generated_through) continue;
    const span: SeriesSpan = {
      job: { id: row.id, number: row.number, name: row.name, status: row.status },
      schedule,
      rule: storedRule(schedule),
      from: addDays(row.generated_through, 1),
      through: horizon,
    };
    // A day's extension is a few visits; a series the worker missed for long catches up to the ceiling per run.
    const skipped = new Set(schedule.skipped_dates);
    const { dates } = expandRule(span.rule, schedule.starts_on, span.from, horizon, { timeZone: workspace.timezone, limit: MAX_OCCURRENCES });
    spans.push({ span, dates: dates.filter((d) => !skipped.has(d)) });
    for (const u of schedule.assignee_ids) assignees.add(u);
  }
  const users = await userRefs(trx, workspace.id, [...assignees]);
  const created = await makeVisits(trx, workspace.id, spans, users);
  await setGeneratedThrough(trx, workspace.id, rows.map((r) => r.id), horizon);
  return { series: rows.length, visits_created: created };
}

/** One pass of the daily job (the worker calls it every minute). */
export const runRecurringDaily = (db: Kysely<DB>, nowMs: number, log: DailyLog | undefined, config: { recurringHorizonDays: number }): Promise<number> =>
  runDaily(
    db,
    RECURRING_DAILY_JOB,
    nowMs,
    async (trx, w, date) => {
      await runRecurringDay(trx, w, date, config.recurringHorizonDays);
    },
    log,
  );
