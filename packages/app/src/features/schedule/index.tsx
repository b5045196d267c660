// Schedule (A4): Day, Week and Month (FullCalendar, loaded with this page only),
// Team (ours), Today / Previous / Next, the "Team member" filter, "New visit",
// the visit's "Edit" form and the "Unscheduled" jobs beside the calendar.
import { Draggable } from '@fullcalendar/interaction';
import { Badge, Button, Group, Loader, Modal, NativeSelect, Paper, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { addDays, formatDate, formatClockRange, nowIn, type WeekStart, weekOf } from '../../lib/format.ts';
import { isOffice, useMe } from '../../lib/session.ts';
import { useWeekStart } from '../../lib/workspace.ts';
import type { CalendarView } from './calendar.tsx';
import { changeOf, changesTiming, conflicts, createVisit, isRecurring, memberName, redrawVisits, useChangeSeries, useChangeVisit, useContacts, useOpenJobs, useScheduledJobIds, useTeam, useVisits, type Visit, type VisitChange } from './data.ts';
import { SeriesQuestion } from './series-question.tsx';
import { TeamView } from './team-view.tsx';
import { type Slot, VisitForm } from './visit-form.tsx';
import './schedule.css';

const Calendar = lazy(() => import('./calendar.tsx'));

type View = 'day' | 'week' | 'month' | 'team';
const FC_VIEW: Record<Exclude<View, 'team'>, CalendarView> = { day: 'timeGridDay', week: 'timeGridWeek', month: 'dayGridMonth' };
/** The dates the view shows, its weeks the workspace's (D9 `week_start`). */
export function rangeOf(view: View, date: string, weekStart: WeekStart): { start: string; end: string } {
  if (view === 'day' || view === 'team') return { start: date, end: date };
  if (view === 'week') {
    const w = weekOf(date, weekStart);
    return { start: w.start_date, end: w.end_date };
  }
  const start = weekOf(`${date.slice(0, 8)}01`, weekStart).start_date;
  return { start, end: addDays(start, 41) }; // the month grid's six weeks
}

function step(view: View, date: string, dir: 1 | -1): string {
  if (view === 'week') return addDays(date, 7 * dir);
  if (view === 'month') {
    const [y, m] = date.split('-').map(Number);
    const d = new Date(Date.UTC(y, m - 1 + dir, 1));
    return d.toISOString().slice(0, 10);
  }
  return addDays(date, dir);
}

export default function SchedulePage() {
  const me = useMe();
  const tz = me.workspace.timezone;
  const now = nowIn(tz);
  const [params, setParams] = useSearchParams();
  const view = (['day', 'week', 'month', 'team'].includes(params.get('view') ?? '') ? params.get('view') : 'week') as View;
  const date = /^\d{4}-\d\d-\d\d$/.test(params.get('date') ?? '') ? (params.get('date') as string) : now.date;
  const member = params.get('member');
  const set = (next: Record<string, string | null>) =>
    setParams((p) => {
      for (const [k, v] of Object.entries(next)) (v === null ? p.delete(k) : p.set(k, v));
      return p;
    });

  // The week is the workspace's: nothing is drawn or asked for until its week_start is known.
  const weekStart = useWeekStart();
  const range = rangeOf(view, date, weekStart ?? 'monday');
  const visits = useVisits(range.start, range.end, weekStart !== undefined);
  const team = useTeam();
  const jobs = useOpenJobs();
  const contacts = useContacts();
  const change = useChangeVisit();
  const office = isOffice(me.user.role);
  const [dialog, setDialog] = useState<{ kind: 'new'; slot?: Slot } | { kind: 'open' | 'edit'; id: number } | null>(null);

  const shown = useMemo(() => (visits.data ?? []).filter((v) => !member || v.assignee_ids.includes(member)), [visits.data, member]);
  const clash = useMemo(() => conflicts(visits.data ?? []), [visits.data]);
  const clients = useMemo(() => {
    const names = new Map((contacts.data ?? []).map((c) => [c.id, [c.first_name, c.last_name].filter(Boolean).join(' ')]));
    return new Map((jobs.data ?? []).flatMap((j) => (j.contact_id !== null && names.has(j.contact_id) ? [[j.id, names.get(j.contact_id) ?? '']] : [])));
  }, [contacts.data, jobs.data]);
  const members = team.data ?? [];
  const teamShown = member ? members.filter((m) => m.user_id === member) : members;

  const client = useQueryClient();
  const series = useChangeSeries();
  // A visit of a series moved in time: asked first whether the rest of the series follows (A7).
  const [asking, setAsking] = useState<{ visit: Visit; change: VisitChange } | null>(null);
  const move = (id: number, c: VisitChange) => {
    const visit = visits.data?.find((v) => v.id === id);
    if (visit && isRecurring(visit) && changesTiming(visit, c)) setAsking({ visit, change: c });
    else change.mutate(changeOf(id, c));
  };
  const answer = (scope: 'one' | 'following' | null) => {
    if (!asking) return;
    setAsking(null);
    if (scope === 'one') change.mutate(changeOf(asking.visit.id, asking.change));
    else if (scope === 'following') series.mutate({ ...asking, key: crypto.randomUUID() });
    else redrawVisits(client);
  };
  const dropJob = async (jobId: number, day: string, time: string | null) => {
    const job = jobs.data?.find((j) => j.id === jobId);
    const end = time ? `${String(Math.min(23, Number(time.slice(0, 2)) + 1)).padStart(2, '0')}:${time.slice(3)}` : null;
    await createVisit({ name: job?.name ?? null, job_id: jobId, start_date: day, end_date: day, start_time: time, end_time: end, all_day: time === null }, crypto.randomUUID());
    await client.invalidateQueries({ queryKey: ['events'] });
  };

  const open = dialog && dialog.kind !== 'new' ? (visits.data ?? []).find((v) => v.id === dialog.id) : undefined;
  const heading =
    view === 'month'
      ? new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`))
      : view === 'week'
        ? `${formatDate(range.start)} – ${formatDate(range.end)}`
        : formatDate(date);

  return (
    <Page
      title="Schedule"
      actions={
        office && (
          <Button onClick={() => setDialog({ kind: 'new' })} disabled={!team.data}>
            New visit
          </Button>
        )
      }
    >
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <Button variant="default" onClick={() => set({ date: null })}>
            Today
          </Button>
          <Button variant="default" onClick={() => set({ date: step(view, date, -1) })}>
            Previous
          </Button>
          <Button variant="default" onClick={() => set({ date: step(view, date, 1) })}>
            Next
          </Button>
        </Group>
        <SegmentedControl
          aria-label="View"
          value={view}
          onChange={(v) => set({ view: v })}
          data={[
            { value: 'day', label: 'Day' },
            { value: 'week', label: 'Week' },
            { value: 'month', label: 'Month' },
            { value: 'team', label: 'Team' },
          ]}
        />
        <NativeSelect
          label="Team member"
          w={200}
          data={[{ value: '', label: 'Everyone' }, ...members.map((m) => ({ value: m.user_id, label: memberName(m) }))]}
          value={member ?? ''}
          onChange={(e) => set({ member: e.currentTarget.value || null })}
        />
      </Group>
      <Title order={2} size="h4" aria-live="polite">
        {heading}
        {visits.isFetching && <Loader size="xs" ml="xs" aria-label="Loading visits" />}
      </Title>
      {visits.error && <Text c="red">{visits.error.message}</Text>}
      <div className="fw-layout">
        <div data-testid="calendar" data-loaded={visits.data && team.data ? 'true' : 'false'}>
          {weekStart === undefined ? (
            <Loader aria-label="Loading the calendar" />
          ) : view === 'team' ? (
            <TeamView date={date} team={teamShown} visits={shown} conflicts={clash} onMove={move} onOpen={(id) => setDialog({ kind: 'open', id })} />
          ) : (
            <Suspense fallback={<Loader aria-label="Loading the calendar" />}>
              <Calendar
                view={FC_VIEW[view]}
                date={date}
                firstDay={weekStart === 'sunday' ? 0 : 1}
                timeZone={tz}
                visits={shown}
                team={members}
                clients={clients}
                conflicts={clash}
                onMove={move}
                onOpen={(id) => setDialog({ kind: 'open', id })}
                onSelect={(slot) => office && setDialog({ kind: 'new', slot: { ...slot, assignee_ids: member ? [member] : [] } })}
                onDropJob={dropJob}
              />
            </Suspense>
          )}
        </div>
        {office && <Unscheduled today={now.date} />}
      </div>
      <Modal opened={dialog !== null} onClose={() => setDialog(null)} closeButtonProps={{ 'aria-label': 'Close' }} transitionProps={{ duration: 0 }} title={dialog?.kind === 'new' ? 'New visit' : dialog?.kind === 'edit' ? 'Edit visit' : (open?.name ?? 'Visit')}>
        {dialog?.kind === 'new' && <VisitForm slot={dialog.slot} team={members} jobs={jobs.data ?? []} contacts={contacts.data ?? []} onDone={() => setDialog(null)} />}
        {dialog?.kind === 'edit' && open && <VisitForm visit={open} team={members} jobs={jobs.data ?? []} contacts={contacts.data ?? []} onDone={() => setDialog(null)} />}
        {dialog?.kind === 'open' && open && <VisitDetails visit={open} tz={tz} names={members} canEdit={office} onEdit={() => setDialog({ kind: 'edit', id: open.id })} conflict={clash.has(open.id)} />}
      </Modal>
      <Modal opened={asking !== null} onClose={() => answer(null)} closeButtonProps={{ 'aria-label': 'Close' }} transitionProps={{ duration: 0 }} title="Change a repeating visit">
        {asking && <SeriesQuestion visit={asking.visit} onAnswer={answer} />}
      </Modal>
    </Page>
  );
}

function VisitDetails({ visit, names, canEdit, onEdit, conflict }: { visit: Visit; tz: string | null; names: ReturnType<typeof useTeam>['data']; canEdit: boolean; onEdit: () => void; conflict: boolean }) {
  const job = useQuery({
    queryKey: ['jobs', visit.job_id],
    enabled: visit.job_id !== null,
    queryFn: async () => (await unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id: visit.job_id ?? 0 } } }))).data,
  });
  const who = visit.assignee_ids.map((id) => names?.find((m) => m.user_id === id)).flatMap((m) => (m ? [memberName(m)] : []));
  return (
    <Stack gap="xs">
      <Text>
        {formatDate(visit.start_date)}
        {visit.end_date !== visit.start_date ? ` – ${formatDate(visit.end_date)}` : ''}
        {visit.all_day || !visit.start_time ? ', all day' : `, ${formatClockRange(visit.start_time, visit.end_time)}`}
      </Text>
      {job.data && (
        <Text>
          Job #{job.data.number} {job.data.name}
          {job.data.contact ? ` · ${job.data.contact.first_name} ${job.data.contact.last_name}` : ''}
        </Text>
      )}
      {isRecurring(visit) && job.data?.schedule && (
        <Text>
          {`Repeats: ${job.data.schedule.description}`}
          {visit.detached && visit.occurrence_date !== visit.start_date ? ` (moved from ${formatDate(visit.occurrence_date)})` : ''}
        </Text>
      )}
      <Text>Assigned to: {who.length ? who.join(', ') : 'nobody'}</Text>
      {conflict && (
        <Badge color="red" variant="filled">
          Conflict: someone here is booked twice at once
        </Badge>
      )}
      {canEdit && (
        <Group justify="flex-end">
          <Button onClick={onEdit}>Edit</Button>
        </Group>
      )}
    </Stack>
  );
}

/** Open jobs with no visit today or later; drag one onto the calendar to schedule it. */
function Unscheduled({ today }: { today: string }) {
  const jobs = useOpenJobs();
  const scheduled = useScheduledJobIds(today);
  const list = useRef<HTMLUListElement>(null);
  const items = (jobs.data ?? []).filter((j) => scheduled.data && !scheduled.data.has(j.id));
  useEffect(() => {
    if (!list.current) return;
    const d = new Draggable(list.current, { itemSelector: '[data-job-id]' });
    return () => d.destroy();
  }, []);
  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="unscheduled-title">
      <Title order={2} size="h4" id="unscheduled-title">
        Unscheduled
      </Title>
      <Text size="sm" c="dimmed">
        Jobs with no upcoming visit: drag one onto the calendar.
      </Text>
      <ul ref={list} style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {items.map((j) => (
          <li key={j.id} data-job-id={j.id} className="fw-unscheduled-item">
            <Paper withBorder p={6} mt={6}>
              Job #{j.number} {j.name}
            </Paper>
          </li>
        ))}
        {scheduled.data && items.length === 0 && <li>Every open job has a visit.</li>}
      </ul>
    </Paper>
  );
}
