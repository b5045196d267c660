// The schedule's reads and its one write path: every change to a visit is one
// PUT /api/v1/events/:id with its own Idempotency-Key, shown at once in every
// cached range and put back, with a message, when the API refuses it.
import type { components } from '@fieldwork/client';
import { notifications } from '@mantine/notifications';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../lib/api.ts';
import { allPages } from '../../lib/pages.ts';
import { movedRule } from '../../lib/rrule.ts';

export type Visit = components['schemas']['EventListItem'];
export type Member = components['schemas']['User'];
export type JobItem = components['schemas']['JobListItem'];
export type ContactItem = components['schemas']['ContactListItem'];
export type VisitChange = Partial<Pick<Visit, 'name' | 'job_id' | 'start_date' | 'end_date' | 'start_time' | 'end_time' | 'all_day' | 'multi_day' | 'assignee_ids'>>;

const RANGE = 'events';

/** The visits overlapping the visible range (crossing its edges included, A130), every page (per_page 100, pages in parallel). */
export function useVisits(start: string, end: string, enabled = true) {
  return useQuery({
    queryKey: [RANGE, start, end],
    enabled,
    queryFn: async () => {
      return allPages('/api/v1/events', { query: { ends_on_or_after: start, starts_on_or_before: end, per_page: 100, sort_by: 'start_date', sort_direction: 'asc' } });
    },
    staleTime: 15_000,
  });
}

export function useTeam() {
  return useQuery({
    queryKey: ['users', 'all'],
    queryFn: () => allPages('/api/v1/users', { query: { per_page: 100, sort_by: 'first_name', sort_direction: 'asc' } }),
    staleTime: 300_000,
  });
}

/** Open jobs (not completed or cancelled) for the form's "Job" and the Unscheduled list. */
export function useOpenJobs() {
  return useQuery({
    queryKey: ['jobs', 'open'],
    queryFn: () => allPages('/api/v1/jobs', { query: { per_page: 100, status: 'draft,scheduled,in_progress', sort_by: 'created_at', sort_direction: 'desc' } }),
  });
}

/** Jobs that have a visit today or later, or one still running: the rest of the open jobs are unscheduled. */
export function useScheduledJobIds(today: string) {
  return useQuery({
    queryKey: [RANGE, 'upcoming', today],
    queryFn: async () => {
      const visits = await allPages('/api/v1/events', { query: { ends_on_or_after: today, per_page: 100 } });
      return new Set(visits.flatMap((v) => (v.job_id === null ? [] : [v.job_id])));
    },
  });
}

export function useContacts() {
  return useQuery({
    queryKey: ['contacts', 'first-100'],
    queryFn: async () => (await unwrap(api.GET('/api/v1/contacts', { params: { query: { per_page: 100, sort_by: 'last_name', sort_direction: 'asc' } } }))).data,
  });
}

export const memberName = (m: Pick<Member, 'first_name' | 'last_name' | 'email'>) => [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;

// Dark enough for white text (WCAG AA), told apart by hue.
const COLOURS = ['#1864ab', '#1e6b30', '#b02525', '#862e9c', '#a03c0c', '#0a5f6e', '#5f3dc4', '#a61e4d', '#364fc7', '#495057'];
export const colourOf = (team: Member[], userId: string | undefined) => {
  const i = userId ? team.findIndex((m) => m.user_id === userId) : -1;
  return i < 0 ? '#495057' : COLOURS[i % COLOURS.length];
};

/** Wall-clock minutes since the epoch (UTC-based): a visit's times compared as the workspace reads them. */
const wall = (date: string, time: string | null, fallback: string) => Date.parse(`${date}T${time ?? fallback}:00Z`) / 60_000;
export const visitSpan = (v: Pick<Visit, 'start_date' | 'end_date' | 'start_time' | 'end_time' | 'all_day'>) =>
  v.all_day || !v.start_time ? { from: wall(v.start_date, '00:00', '00:00'), to: wall(v.end_date, '23:59', '23:59') + 1 } : { from: wall(v.start_date, v.start_time, '00:00'), to: wall(v.end_date, v.end_time, v.start_time) };

/** Ids of visits that book one member twice at once: shown, never refused. */
export function conflicts(visits: Visit[]): Set<number> {
  const out = new Set<number>();
  const byMember = new Map<string, { id: number; from: number; to: number }[]>();
  for (const v of visits) {
    if (v.status === 'cancelled') continue;
    const s = visitSpan(v);
    for (const a of v.assignee_ids) {
      const list = byMember.get(a) ?? [];
      list.push({ id: v.id, ...s });
      byMember.set(a, list);
    }
  }
  for (const list of byMember.values()) {
    list.sort((a, b) => a.from - b.from);
    let last: { id: number; to: number } | null = null;
    for (const item of list) {
      if (last && item.from < last.to) {
        out.add(item.id);
        out.add(last.id);
      }
      if (!last || item.to > last.to) last = item;
    }
  }
  return out;
}

function patchCached(client: QueryClient, id: number, change: VisitChange) {
  for (const [key, rows] of client.getQueriesData<Visit[]>({ queryKey: [RANGE] })) {
    if (Array.isArray(rows)) client.setQueryData(key, rows.map((v) => (v.id === id ? { ...v, ...change } : v)));
  }
}

/** One change to one visit: optimistic, rolled back with a message on refusal. */
export function useChangeVisit() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change, key }: { id: number; change: VisitChange; key: string }) =>
      unwrap(api.PUT('/api/v1/events/{id}', { params: { path: { id } }, body: change, headers: { 'idempotency-key': key } })),
    onMutate: async ({ id, change }) => {
      await client.cancelQueries({ queryKey: [RANGE] });
      const before = client.getQueriesData<Visit[]>({ queryKey: [RANGE] });
      patchCached(client, id, change);
      return { before };
    },
    onError: (err, _vars, context) => {
      for (const [key, rows] of context?.before ?? []) client.setQueryData(key, rows);
      notifications.show({ color: 'red', title: 'The visit was not changed', message: err.message });
    },
    onSettled: () => client.invalidateQueries({ queryKey: [RANGE] }),
  });
}

/** Hands a change to useChangeVisit with a fresh Idempotency-Key (a retry inside the client reuses it). */
export const changeOf = (id: number, change: VisitChange) => ({ id, change, key: crypto.randomUUID() });

export async function createVisit(body: VisitChange & { start_date: string; end_date: string }, key: string) {
  return (await unwrap(api.POST('/api/v1/events', { body: { type: 'appointment', ...body }, headers: { 'idempotency-key': key } }))).data;
}

/** A visit a job's schedule made (E20): it stands for a date of the rule. */
export const isRecurring = (v: Pick<Visit, 'occurrence_date'>) => v.occurrence_date !== null;

/** Whether a change moves a visit in time (its date, times or all-day), not only to other people. */
export const changesTiming = (v: Visit, c: VisitChange) =>
  (['start_date', 'end_date', 'start_time', 'end_time', 'all_day'] as const).some((k) => c[k] !== undefined && c[k] !== v[k]);

/** Hands every cached range back to the calendar as a new array, so a visit dragged and then not changed is drawn where it is. */
export function redrawVisits(client: QueryClient) {
  for (const [key, rows] of client.getQueriesData<Visit[]>({ queryKey: [RANGE] })) {
    if (Array.isArray(rows)) client.setQueryData(key, [...rows]);
  }
}

/**
 * "This and following visits" (E21): the job's schedule from the visit's rule date
 * (or the new date, when that is earlier) with the visit's new times, people and
 * weekday; the visits from then on are made anew by the API (A143).
 */
export async function changeSeries(visit: Visit, change: VisitChange, key: string) {
  const jobId = visit.job_id;
  const from = visit.occurrence_date;
  const job = jobId === null ? null : (await unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id: jobId } } }))).data;
  if (jobId === null || from === null || !job?.schedule) throw new Error("This visit's job no longer repeats: change only this visit.");
  const s = job.schedule;
  const to = change.start_date ?? visit.start_date;
  const allDay = change.all_day ?? visit.all_day;
  const schedule = {
    rrule: movedRule(s.rrule, from, to),
    starts_on: to === from ? s.starts_on : to,
    start_time: allDay ? null : (change.start_time ?? visit.start_time),
    end_time: allDay ? null : (change.end_time ?? visit.end_time),
    all_day: allDay,
    assignee_ids: change.assignee_ids ?? s.assignee_ids,
    effective_from: to < from ? to : from,
  };
  return unwrap(api.PUT('/api/v1/jobs/{id}', { params: { path: { id: jobId } }, body: { schedule }, headers: { 'idempotency-key': key } }));
}

/** changeSeries from a drag: the calendar redrawn from the API's visits after, or put back with a message on refusal. */
export function useChangeSeries() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ visit, change, key }: { visit: Visit; change: VisitChange; key: string }) => changeSeries(visit, change, key),
    onError: (err) => {
      redrawVisits(client);
      notifications.show({ color: 'red', title: 'The visits were not changed', message: err.message });
    },
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: [RANGE] }), client.invalidateQueries({ queryKey: ['jobs'] })]),
  });
}
