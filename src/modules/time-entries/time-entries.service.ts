import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { checkReferences } from '../../db/references.ts';
import { hoursBetween, round2, spanProblems, weekOf, weekStartOf } from '../../domain/weeks.ts';
import type { AppContext } from '../../http/context.ts';
import { actsAsMember, requireOwn } from '../../http/roles.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound, ValidationError } from '../../kernel/errors.ts';
import { findWorkspace, settingsOf } from '../workspace/workspace.service.ts';
import { ensureTimesheet, lockTimesheets, recomputeTotals } from '../timesheets/timesheets.repo.ts';
import { deleteTimeEntry, findTimeEntry, insertTimeEntry, listTimeEntries, lockTimeEntry, updateTimeEntry } from './time-entries.repo.ts';
import type { TimeEntry, TimeEntryCreate, TimeEntryQuery, TimeEntryUpdate } from './time-entries.schemas.ts';

// Every write follows one order, which keeps PostgreSQL free of deadlocks and the
// timesheet totals exact under concurrent writers (D9):
//   lock the entry -> validate -> find or create the target timesheet ->
//   lock the old and new timesheets (id order) -> write the entry -> recompute both totals.

const TIME_FIELDS = ['start_date', 'end_date', 'start_time', 'end_time'] as const;

interface Placement {
  user_id: string;
  start_date: string;
  end_date: string;
  start_time?: string | null;
  end_time?: string | null;
}

/** The workspace's week start (D9) and zone (the wall clock of the times). */
async function calendarOf(db: Kysely<DB>, workspaceId: number) {
  const w = await findWorkspace(db, workspaceId);
  if (!w) throw notFound('Workspace');
  return { weekStart: weekStartOf(settingsOf(w).week_start), timeZone: w.timezone };
}

async function validate(db: Kysely<DB>, workspaceId: number, merged: Placement, body: TimeEntryUpdate) {
  const problems = spanProblems(merged);
  if (problems.length) throw new ValidationError(problems);
  await checkReferences(db, workspaceId, {
    ids: { job_id: ['jobs', body.job_id], request_id: ['requests', body.request_id], quote_id: ['quotes', body.quote_id] },
    users: { user_id: body.user_id?.toLowerCase() },
  });
}

/** D9: the supplied hours (two decimals), else the hours between both times, else `fallback`. */
function totalOf(merged: Placement, supplied: number | undefined, timeZone: string | null, fallback: number): number {
  if (supplied !== undefined) return round2(supplied);
  if (merged.start_time && merged.end_time) return hoursBetween(merged.start_date, merged.start_time, merged.end_date, merged.end_time, timeZone);
  return fallback;
}

export function timeEntriesService({ db, dialect }: AppContext): CrudService<TimeEntryQuery, TimeEntryCreate, TimeEntryUpdate, TimeEntry, TimeEntry> {
  const get = async (trx: Kysely<DB>, workspaceId: number, id: number) => {
    const entry = await findTimeEntry(trx, workspaceId, id);
    if (!entry) throw notFound('Time entry');
    return entry;
  };

  return {
    // A14: a member's session sees and changes its own time entries only.
    list: (auth, query) => listTimeEntries(db, auth.workspaceId, actsAsMember(auth) ? { ...query, user_id: auth.userId } : query),
    get: async (auth, id) => {
      const entry = await get(db, auth.workspaceId, id);
      requireOwn(auth, entry.user_id);
      return entry;
    },

    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        const ws = auth.workspaceId;
        const user_id = body.user_id?.toLowerCase() ?? auth.userId; // SPEC: defaults to the key's user
        requireOwn(auth, user_id);
        const entry = { ...body, user_id };
        await validate(trx, ws, entry, body);
        const { weekStart, timeZone } = await calendarOf(trx, ws);
        const timesheetId = await ensureTimesheet(trx, ws, user_id, weekOf(entry.start_date, weekStart));
        await lockTimesheets(trx, dialect, ws, [timesheetId]);
        const at = now();
        const { id } = await insertTimeEntry(trx, {
          ...entry,
          total_time: totalOf(entry, body.total_time, timeZone, 0),
          workspace_id: ws,
          timesheet_id: timesheetId,
          created_by: auth.userId,
          created_at: at,
          updated_at: at,
        });
        await recomputeTotals(trx, ws, [timesheetId]);
        return get(trx, ws, id);
      }),

    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        const ws = auth.workspaceId;
        const existing = await lockTimeEntry(trx, dialect, ws, id);
        if (!existing) throw notFound('Time entry');
        requireOwn(auth, existing.user_id);
        const user_id = body.user_id?.toLowerCase() ?? existing.user_id;
        requireOwn(auth, user_id);
        const merged = { ...existing, ...body, user_id };
        await validate(trx, ws, merged, body);
        const { weekStart, timeZone } = await calendarOf(trx, ws);
        // D9 on update: supplied hours win; a change of a date or time recomputes them
        // (when both times are set); any other change keeps them.
        const timesMoved = TIME_FIELDS.some((f) => body[f] !== undefined);
        const total_time = timesMoved || body.total_time !== undefined ? totalOf(merged, body.total_time, timeZone, existing.total_time) : existing.total_time;
        // Another user or week moves the entry to that timesheet (D9).
        const timesheetId = await ensureTimesheet(trx, ws, user_id, weekOf(merged.start_date, weekStart));
        const touched = [existing.timesheet_id, timesheetId];
        await lockTimesheets(trx, dialect, ws, touched);
        await updateTimeEntry(trx, ws, id, {
          ...body,
          user_id,
          total_time,
          timesheet_id: timesheetId,
          updated_at: now(),
        });
        await recomputeTotals(trx, ws, touched);
        return get(trx, ws, id);
      }),

    remove: (auth, id) =>
      transact(db, auth, async (trx) => {
        const ws = auth.workspaceId;
        const existing = await lockTimeEntry(trx, dialect, ws, id);
        if (!existing) throw notFound('Time entry');
        requireOwn(auth, existing.user_id);
        await lockTimesheets(trx, dialect, ws, [existing.timesheet_id]);
        await deleteTimeEntry(trx, ws, id); // D12: permanent
        await recomputeTotals(trx, ws, [existing.timesheet_id]); // an emptied timesheet stays, at 0
      }),
  };
}
