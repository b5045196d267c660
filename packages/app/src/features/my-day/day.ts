// My day's data (A4, A12): today's visits assigned to me, each with what the crew
// needs on site from its job, and my running clocks, read in one go, saved on the
// device whenever read online and read from there when the network is gone.
// Each job is read once (GET /jobs/:id) and joined to its visits by id in a Map
// of this load: never through a cache entry another page fills with another
// shape (the cause of visits shown without their client, F324).
import type { components, paths } from '@fieldwork/client';
import { api, unwrap } from '../../lib/api.ts';
import { readDay, saveDay } from '../../lib/offline-store.ts';
import { allPages } from '../../lib/pages.ts';
import { isNetworkError, type QueuedWrite } from '../../lib/write-queue.ts';

export type Visit = components['schemas']['EventListItem'];
export type Entry = components['schemas']['TimeEntry'];
type JobDetail = paths['/api/v1/jobs/{id}']['get']['responses'][200]['content']['application/json']['data'];

/** What a visit shows of its job, kept on the device: no prices (F320). */
export interface JobView {
  id: number;
  name: string | null;
  contact: { first_name: string; last_name: string; phone: string | null } | null;
  property: { address: NonNullable<JobDetail['property']>['address']; access_notes: string | null } | null;
  line_items: { id: string; name: string; description: string | null; quantity: number }[];
}

export interface DayVisit {
  visit: Visit;
  job: JobView | null;
}

export interface Day {
  date: string;
  visits: DayVisit[];
  /** My time entries of today (and any still running): the open ones are the running clocks. */
  entries: Entry[];
  /** Set when read from the device, not the network: when it was saved. */
  saved_at: string | null;
}

const jobView = (j: JobDetail): JobView => ({
  id: j.id,
  name: j.name,
  contact: j.contact && { first_name: j.contact.first_name, last_name: j.contact.last_name, phone: j.contact.phone },
  property: j.property && { address: j.property.address, access_notes: j.property.access_notes },
  // A member's session reads the job without `line_items`, with `work_items` instead (A14): the same items, no prices.
  line_items: (j.line_items ?? j.work_items ?? []).map((li) => ({ id: li.id, name: li.name, description: li.description, quantity: li.quantity })),
});

const startOf = (v: Visit) => (v.all_day ? '' : (v.start_time ?? ''));

async function fetchDay(userId: string, date: string): Promise<Day> {
  const [rows, entries] = await Promise.all([
    allPages('/api/v1/events', { query: { ends_on_or_after: date, starts_on_or_before: date, assignee_ids: userId, per_page: 100 } }),
    allPages('/api/v1/time-entries', { query: { user_id: userId, start_date: date, per_page: 100 } }),
  ]);
  const visits = rows.filter((v) => v.status !== 'cancelled').sort((a, b) => startOf(a).localeCompare(startOf(b)) || a.id - b.id);
  const jobIds = [...new Set(visits.flatMap((v) => (v.job_id === null ? [] : [v.job_id])))];
  const jobs = new Map<number, JobView>();
  await Promise.all(
    jobIds.map(async (id) => {
      const job = (await unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id } } }))).data;
      jobs.set(job.id, jobView(job));
    }),
  );
  return { date, visits: visits.map((visit) => ({ visit, job: visit.job_id === null ? null : (jobs.get(visit.job_id) ?? null) })), entries, saved_at: null };
}

/** Today's My day: from the network (then saved on the device), else as last saved today. */
export async function loadDay(owner: string, userId: string, date: string): Promise<Day> {
  try {
    const day = await fetchDay(userId, date);
    await saveDay(owner, date, day);
    return day;
  } catch (err) {
    if (!isNetworkError(err)) throw err;
    const saved = await readDay<Day>(owner, date);
    if (!saved) throw new Error("You are offline, and today's visits were not saved on this phone yet.");
    return { ...saved.data, saved_at: saved.saved_at };
  }
}

/** A running clock: a time entry with no end, or a clock in still waiting to be sent. */
export interface Clock {
  entryId: number | null;
  /** The Idempotency-Key of the waiting clock in, whose answer the clock out will end. */
  clockInKey: string | null;
  start_date: string;
  start_time: string | null;
}

/**
 * How a visit stands once the writes waiting to be sent are counted (they will be,
 * in order): its status and the job's running clock.
 */
export function withWaiting(day: DayVisit, entries: Entry[], writes: QueuedWrite[]): { status: Visit['status']; clock: Clock | null } {
  let status = day.visit.status;
  const open = entries.find((e) => e.start_time !== null && e.end_time === null && e.job_id === day.visit.job_id);
  let clock: Clock | null = open ? { entryId: open.id, clockInKey: null, start_date: open.start_date, start_time: open.start_time } : null;
  for (const w of writes) {
    if (w.refused) continue;
    if (w.visitId === day.visit.id && w.kind === 'start') status = 'in_progress';
    if (w.visitId === day.visit.id && w.kind === 'complete') status = 'completed';
    if (w.jobId === day.visit.job_id && w.kind === 'clock-in') {
      const body = w.body as { start_date: string; start_time: string };
      clock = { entryId: null, clockInKey: w.key, start_date: body.start_date, start_time: body.start_time };
    }
    if (w.jobId === day.visit.job_id && w.kind === 'clock-out') clock = null;
  }
  return { status, clock };
}
