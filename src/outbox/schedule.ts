import type { Kysely } from 'kysely';
import { now } from '../db/json.ts';
import type { DB } from '../db/schema.ts';
import { zonedWallClock } from '../domain/zoned-time.ts';

// The one mechanism for daily per-workspace jobs (D22 `appointments_soon`, and any
// later daily job). A workspace is due for a job when `scheduled_runs` has no row
// for it, the job and its local date now: the day's run happens on the first pass
// after local midnight, a new workspace at the next pass, and a worker that was
// down for days runs only today's (no backfill). The run row is inserted in the
// run's own transaction, so a run happens once (several workers, restarts) or,
// when it fails, not at all and again at a later pass.

/** Workspaces run per pass; the rest are due at the next pass. */
export const DAILY_BATCH = 100;

export interface DailyWorkspace {
  id: number;
  timezone: string | null;
}

export type DailyWork = (trx: Kysely<DB>, workspace: DailyWorkspace, runDate: string) => Promise<void>;

export interface DailyLog {
  error(obj: object, msg: string): void;
}

/**
 * One pass of `job`: runs `work` for each due workspace (at most DAILY_BATCH), each
 * in its own transaction, and returns how many runs it did. A workspace whose run
 * fails is logged and left due; the others still run. `startsAt` (HH:MM) holds a
 * job until that local time of the day (E24's reminders: 09:00), and it runs at the
 * first pass after it that day.
 */
export async function runDaily(db: Kysely<DB>, job: string, nowMs: number, work: DailyWork, log?: DailyLog, startsAt = '00:00'): Promise<number> {
  const due = await dueWorkspaces(db, job, nowMs, startsAt);
  let runs = 0;
  for (const { workspace, runDate } of due) {
    try {
      const ran = await db.transaction().execute(async (trx) => {
        // The run row first: on PostgreSQL a concurrent run of the same key waits
        // here until this one commits (then sees the conflict) or rolls back.
        const claimed = await trx
          .insertInto('scheduled_runs')
          .values({ workspace_id: workspace.id, job, run_date: runDate, created_at: now() })
          .onConflict((oc) => oc.columns(['workspace_id', 'job', 'run_date']).doNothing())
          .returning('workspace_id')
          .executeTakeFirst();
        if (!claimed) return false; // another worker did (or is doing) it
        await work(trx, workspace, runDate);
        return true;
      });
      if (ran) runs++;
    } catch (err) {
      log?.error({ err, job, workspace_id: workspace.id, run_date: runDate }, 'daily job failed; it runs again at a later pass');
    }
  }
  return runs;
}

/**
 * The due workspaces with their local date: one query for the distinct time zones,
 * then one per zone (not per workspace) for its workspaces lacking today's row.
 * Zones are stored as given; null and unknown names count as UTC (zoned-time.ts).
 */
async function dueWorkspaces(db: Kysely<DB>, job: string, nowMs: number, startsAt: string): Promise<{ workspace: DailyWorkspace; runDate: string }[]> {
  const zones = await db.selectFrom('workspaces').select('timezone').distinct().execute();
  const due: { workspace: DailyWorkspace; runDate: string }[] = [];
  for (const { timezone } of zones) {
    const left = DAILY_BATCH - due.length;
    if (left <= 0) break;
    const { date: runDate, time } = zonedWallClock(nowMs, timezone);
    if (time < startsAt) continue; // the zone's day has not reached the job's hour yet
    let qb = db
      .selectFrom('workspaces as w')
      .select(['w.id', 'w.timezone'])
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('scheduled_runs as r')
              .select('r.workspace_id')
              .whereRef('r.workspace_id', '=', 'w.id')
              .where('r.job', '=', job)
              .where('r.run_date', '=', runDate),
          ),
        ),
      );
    qb = timezone === null ? qb.where('w.timezone', 'is', null) : qb.where('w.timezone', '=', timezone);
    const rows = await qb.orderBy('w.id').limit(left).execute();
    for (const w of rows) due.push({ workspace: { id: w.id, timezone: w.timezone }, runDate });
  }
  return due;
}
