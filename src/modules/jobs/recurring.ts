import type { Insertable, Kysely } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import { userRefs } from '../../db/references.ts';
import type { DB, EventsTable } from '../../db/schema.ts';
import { addDays, describeRule, expandRule, MAX_OCCURRENCES, parseRule, type Rule } from '../../domain/recurrence.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { type Detail, invalidField, ValidationError } from '../../kernel/errors.ts';
import { emitMany } from '../../outbox/emit.ts';
import { removeAttachments } from '../uploads/attachments.ts';
import { deleteReplaceableVisits, eventsWithFiles, type InsertedVisit, insertVisitAssignees, insertVisits } from './recurring.repo.ts';
import type { Schedule, ScheduleInput, StoredSchedule } from './jobs.schemas.ts';

// E20/E21: a recurring job's series of visits. The rule is validated before
// anything is written; visits are made set-based, in the transaction of the job's
// write (or of the daily run), through the horizon: today plus
// RECURRING_HORIZON_DAYS in the workspace's timezone.

/** Statuses in which a series makes no visits (E20). */
export const STOPPED = new Set(['completed', 'cancelled']);

/** The rule's text parsed, or 400 naming `path` (`["schedule", "rrule"]`, the preview's `["rrule"]`). */
export function ruleOf(text: string, path: (string | number)[]): Rule {
  const parsed = parseRule(text);
  if (!parsed.ok) throw invalidField(path, parsed.message);
  return parsed.rule;
}

/** A stored rule: validated when written, so a failure here is a bug, not bad input. */
function storedRule(schedule: StoredSchedule): Rule {
  const parsed = parseRule(schedule.rrule);
  if (!parsed.ok) throw new Error(`stored rule "${schedule.rrule}" no longer parses: ${parsed.message}`);
  return parsed.rule;
}

/**
 * E20: the schedule as sent, validated (the rule, the times) and with its
 * assignees checked (D11), as it will be stored. `skipped` is what the series
 * already skips, kept when the input does not name `skipped_dates` (E21).
 */
export async function scheduleOf(trx: Kysely<DB>, workspaceId: number, input: ScheduleInput, skipped: string[]): Promise<{ stored: StoredSchedule; rule: Rule; users: UserNames }> {
  const rule = ruleOf(input.rrule, ['schedule', 'rrule']);
  const allDay = input.all_day === true;
  const details: Detail[] = [];
  if (!allDay) {
    if (!input.start_time) details.push({ path: ['schedule', 'start_time'], message: 'start_time is required unless all_day is true' });
    if (!input.end_time) details.push({ path: ['schedule', 'end_time'], message: 'end_time is required unless all_day is true' });
    if (input.start_time && input.end_time && input.end_time <= input.start_time) details.push({ path: ['schedule', 'end_time'], message: 'end_time must be after start_time' });
  }
  if (details.length) throw new ValidationError(details);
  const sent = input.assignee_ids ?? [];
  const assignees = [...new Set(sent.map((u) => u.toLowerCase()))].sort();
  const users = await userRefs(trx, workspaceId, assignees);
  const missing = sent.map((u, i) => [u, i] as const).filter(([u]) => !users.has(u.toLowerCase()));
  if (missing.length) throw new ValidationError(missing.map(([u, i]) => ({ path: ['schedule', 'assignee_ids', i], message: `user ${u} is not a member of this workspace` })));
  const stored: StoredSchedule = {
    rrule: rule.text,
    starts_on: input.starts_on,
    start_time: allDay ? null : (input.start_time ?? null),
    end_time: allDay ? null : (input.end_time ?? null),
    all_day: allDay,
    assignee_ids: assignees,
    skipped_dates: [...new Set(input.skipped_dates ?? skipped)].sort(),
  };
  return { stored, rule, users };
}

export type UserNames = Awaited<ReturnType<typeof userRefs>>;

/** Today and the horizon on the workspace's wall clock. */
export interface SeriesClock {
  today: string;
  horizon: string;
}
export const clockOf = (timeZone: string | null, horizonDays: number, nowMs = Date.now()): SeriesClock => {
  const today = zonedDate(nowMs, timeZone);
  return { today, horizon: addDays(today, horizonDays) };
};

/** The job a series belongs to, as its visits name it. */
export interface SeriesJob {
  id: number;
  number: number;
  name: string | null;
  status: string;
}

/** One series' dates to make: its rule from `from` through `through`, minus the skipped dates. */
export interface SeriesSpan {
  job: SeriesJob;
  schedule: StoredSchedule;
  rule: Rule;
  from: string;
  through: string;
}

/**
 * The dates a span makes; more than MAX_OCCURRENCES is 400 naming the rule (E20),
 * checked before anything is written.
 */
export function datesOf(span: SeriesSpan, timeZone: string | null): string[] {
  const { dates, truncated } = expandRule(span.rule, span.schedule.starts_on, span.from, span.through, { timeZone, limit: MAX_OCCURRENCES });
  if (truncated) {
    throw invalidField(['schedule', 'rrule'], `the rule makes more than ${MAX_OCCURRENCES.toLocaleString('en-US')} visits from ${span.from} through ${span.through}; make it less frequent or end it sooner`);
  }
  const skipped = new Set(span.schedule.skipped_dates);
  return dates.filter((d) => !skipped.has(d));
}

/**
 * Makes the visits of several series in one workspace, set-based: one INSERT ... ON
 * CONFLICT DO NOTHING per 500 visits, one for their assignees, one for their
 * `new_event`s (E14: once per visit made; a visit another writer made first is not
 * made again, so fires nothing here). Returns how many it made.
 */
export async function makeVisits(trx: Kysely<DB>, workspaceId: number, spans: readonly { span: SeriesSpan; dates: string[] }[], users: UserNames): Promise<number> {
  const at = now();
  const rows: Insertable<EventsTable>[] = [];
  const bySeries = new Map<number, SeriesSpan>();
  for (const { span, dates } of spans) {
    bySeries.set(span.job.id, span);
    const s = span.schedule;
    for (const date of dates) {
      rows.push({
        workspace_id: workspaceId,
        name: span.job.name,
        description: null,
        job_id: span.job.id,
        request_id: null,
        start_date: date,
        end_date: date,
        start_time: s.start_time,
        end_time: s.end_time,
        all_day: s.all_day ? 1 : 0,
        multi_day: 0,
        type: 'appointment',
        status: 'scheduled',
        created_by: null,
        created_at: at,
        updated_at: at,
        occurrence_date: date,
      });
    }
  }
  if (!rows.length) return 0;
  const made = await insertVisits(trx, rows);
  if (!made.length) return 0;
  const assignees: { workspace_id: number; event_id: number; user_id: string }[] = [];
  for (const visit of made) {
    const span = bySeries.get(visit.job_id as number);
    for (const user_id of span?.schedule.assignee_ids ?? []) assignees.push({ workspace_id: workspaceId, event_id: visit.id, user_id });
  }
  await insertVisitAssignees(trx, assignees);
  made.sort((a, b) => (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id - b.id));
  await emitMany(trx, workspaceId, 'new_event', 'events', made.map((v) => visitDetail(v, bySeries.get(v.job_id as number) as SeriesSpan, users)));
  return made.length;
}

/** The visit as the event single GET answers it, built from what was inserted. */
function visitDetail(v: InsertedVisit, span: SeriesSpan, users: UserNames) {
  const ids = span.schedule.assignee_ids;
  return {
    id: v.id,
    workspace_id: v.workspace_id,
    name: v.name,
    description: v.description,
    job_id: v.job_id,
    request_id: v.request_id,
    start_date: v.start_date,
    end_date: v.end_date,
    start_time: v.start_time,
    end_time: v.end_time,
    all_day: Boolean(v.all_day),
    multi_day: Boolean(v.multi_day),
    type: v.type,
    status: v.status,
    assignee_ids: ids,
    occurrence_date: v.occurrence_date,
    detached: Boolean(v.detached),
    invoice_id: v.invoice_id,
    created_at: v.created_at,
    updated_at: v.updated_at,
    customer_confirmed_at: v.customer_confirmed_at,
    assignees: ids.flatMap((u) => {
      const user = users.get(u);
      return user ? [{ id: user.id, first_name: user.first_name, last_name: user.last_name }] : [];
    }),
    job: { id: span.job.id, number: span.job.number, name: span.job.name, status: span.job.status },
  };
}

/**
 * E21: deletes the series' visits from `fromDate` on that are still `scheduled`
 * and not detached, with `event_deleted` each; returns how many.
 */
export async function dropVisits(trx: Kysely<DB>, workspaceId: number, jobId: number, fromDate: string): Promise<number> {
  const ids = await deleteReplaceableVisits(trx, workspaceId, jobId, fromDate);
  if (!ids.length) return 0;
  for (const id of await eventsWithFiles(trx, workspaceId, ids)) await removeAttachments(trx, workspaceId, 'event', id); // D12
  await emitMany(trx, workspaceId, 'event_deleted', 'events', ids.map((id) => ({ id })));
  return ids.length;
}

/** The stored schedule of a row (JSON text), or null. */
export const storedSchedule = (text: string | null): StoredSchedule | null => fromJson<StoredSchedule>(text);
export const scheduleText = (schedule: StoredSchedule | null): string | null => toJson(schedule);

/** E20's output: the stored rule with its description, next visit and how far it was made. */
export function presentSchedule(schedule: StoredSchedule | null, generatedThrough: string | null, nextVisitOn: string | null): Schedule | null {
  if (!schedule) return null;
  return {
    ...schedule,
    description: describeRule(storedRule(schedule), schedule.starts_on),
    next_visit_on: nextVisitOn,
    generated_through: generatedThrough ?? addDays(schedule.starts_on, -1),
  };
}

/**
 * `next_visit_on` from the first few visit dates from yesterday in UTC on (the
 * workspace's today is never earlier), read in the same statement as the job: the
 * first on or after today on the workspace's wall clock.
 */
export function nextVisitFrom(candidates: string[] | null, timeZone: string | null, nowMs = Date.now()): string | null {
  if (!candidates?.length) return null;
  const today = zonedDate(nowMs, timeZone);
  return candidates.find((d) => d >= today) ?? null;
}

/** The parsed rule of a stored schedule (for the daily run). */
export { storedRule };
