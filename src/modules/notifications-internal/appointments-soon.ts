import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { zonedDate, zonedInstant } from '../../domain/zoned-time.ts';
import { type DailyLog, type DailyWorkspace, runDaily } from '../../outbox/schedule.ts';
import { notifyUsers } from './internal-notifications.ts';
import { appointmentAssignees, insertNewReminders } from './notifications-internal.repo.ts';

// D22: the daily `appointments_soon` reminder (SPEC "Internal notifications"): for
// each `scheduled` appointment starting within the next 24 hours on the
// workspace's wall clock, its assignees are notified, once per event and user.

export const APPOINTMENTS_SOON_JOB = 'appointments_soon';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per reminder insert: 4 parameters each, far below either database's limit. */
const INSERT_CHUNK = 500;

/**
 * The `work` of the daily run for one workspace, inside the run's transaction. The
 * pairs already reminded (`appointment_reminders`) are skipped, so an event still
 * in the window the next day (or moved) does not notify the same user again.
 */
export async function remindAppointmentsSoon(trx: Kysely<DB>, workspace: DailyWorkspace, _runDate: string, nowMs: number): Promise<void> {
  const tz = workspace.timezone;
  const until = nowMs + DAY_MS;
  // Candidates by local date (index-friendly), then the exact window by instant.
  const rows = await appointmentAssignees(trx, workspace.id, zonedDate(nowMs, tz), zonedDate(until, tz));
  const soon = rows.filter((r) => {
    const start = zonedInstant(r.start_date, r.start_time ?? '00:00', tz);
    return start >= nowMs && start < until;
  });
  if (!soon.length) return;

  // Only the pairs this insert created are notified: the table is the "once".
  const at = now();
  const fresh = new Set<string>();
  for (let i = 0; i < soon.length; i += INSERT_CHUNK) {
    const chunk = soon.slice(i, i + INSERT_CHUNK).map((r) => ({ workspace_id: workspace.id, event_id: r.id, user_id: r.user_id, created_at: at }));
    const inserted = await insertNewReminders(trx, chunk);
    for (const p of inserted) fresh.add(`${p.event_id} ${p.user_id}`);
  }

  const byEvent = new Map<number, { event: (typeof soon)[number]; users: string[] }>();
  for (const r of soon) {
    if (!fresh.has(`${r.id} ${r.user_id}`)) continue;
    const entry = byEvent.get(r.id) ?? { event: r, users: [] };
    entry.users.push(r.user_id);
    byEvent.set(r.id, entry);
  }
  for (const { event, users } of byEvent.values()) {
    await notifyUsers(trx, workspace.id, 'appointments_soon', users, { type: 'event', id: event.id }, {
      event_id: event.id,
      name: event.name,
      start_date: event.start_date,
      start_time: event.start_time,
    });
  }
}

/** One pass of the daily `appointments_soon` job (the worker calls it every minute). */
export const runAppointmentsSoon = (db: Kysely<DB>, nowMs = Date.now(), log?: DailyLog): Promise<number> =>
  runDaily(db, APPOINTMENTS_SOON_JOB, nowMs, (trx, w, d) => remindAppointmentsSoon(trx, w, d, nowMs), log);
