// Day, Week and Month through FullCalendar's MIT packages. Visits keep the
// workspace's wall clock (date + HH:MM), so the calendar runs in "UTC" and is
// handed those wall times as they are: what it shows is the workspace's time,
// whatever the browser's zone.
import type { EventContentArg, EventDropArg, EventInput } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin, { type DropArg, type EventResizeDoneArg } from '@fullcalendar/interaction';
import FullCalendar from '@fullcalendar/react';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useMemo } from 'react';
import { addDays } from '../../lib/format.ts';
import { colourOf, type Member, memberName, type Visit, type VisitChange } from './data.ts';

export type CalendarView = 'timeGridDay' | 'timeGridWeek' | 'dayGridMonth';

export interface CalendarProps {
  view: CalendarView;
  date: string;
  firstDay: 0 | 1;
  now: string;
  visits: Visit[];
  team: Member[];
  clients: Map<number, string>;
  conflicts: Set<number>;
  onMove: (id: number, change: VisitChange) => void;
  onOpen: (id: number) => void;
  onSelect: (slot: { date: string; start_time: string | null; end_time: string | null; all_day: boolean }) => void;
  onDropJob: (jobId: number, date: string, time: string | null) => void;
}

const iso = (d: Date) => d.toISOString();
const dateOf = (d: Date) => iso(d).slice(0, 10);
const timeOf = (d: Date) => iso(d).slice(11, 16);
const plusHour = (t: string) => `${String(Math.min(23, Number(t.slice(0, 2)) + 1)).padStart(2, '0')}:${t.slice(3)}`;

export function toInput(v: Visit, team: Member[], clients: Map<number, string>, conflict: boolean): EventInput {
  const colour = colourOf(team, v.assignee_ids[0]);
  const timed = !v.all_day && v.start_time !== null;
  return {
    id: String(v.id),
    title: v.name ?? 'Visit',
    start: timed ? `${v.start_date}T${v.start_time}:00` : v.start_date,
    end: timed ? `${v.end_date}T${v.end_time ?? plusHour(v.start_time ?? '00:00')}:00` : addDays(v.end_date, 1),
    allDay: !timed,
    backgroundColor: colour,
    borderColor: conflict ? '#000' : colour,
    textColor: '#fff',
    classNames: conflict ? ['fw-conflict'] : [],
    extendedProps: {
      client: v.job_id !== null ? (clients.get(v.job_id) ?? '') : '',
      assignees: v.assignee_ids.map((id) => team.find((m) => m.user_id === id)).flatMap((m) => (m ? [memberName(m)] : [])).join(', '),
      conflict,
    },
  };
}

/** A moved or resized event as the change the API takes. */
function changeOf(start: Date, end: Date | null, allDay: boolean): VisitChange {
  if (allDay) {
    const last = end ? addDays(dateOf(end), -1) : dateOf(start);
    return { start_date: dateOf(start), end_date: last, all_day: true, start_time: null, end_time: null, multi_day: last !== dateOf(start) };
  }
  const e = end ?? new Date(start.getTime() + 3_600_000);
  return { start_date: dateOf(start), end_date: dateOf(e), start_time: timeOf(start), end_time: timeOf(e), all_day: false, multi_day: dateOf(e) !== dateOf(start) };
}

function Content({ event, timeText }: EventContentArg) {
  const { client, assignees, conflict } = event.extendedProps as { client: string; assignees: string; conflict: boolean };
  return (
    <div className="fw-visit">
      {timeText && <span className="fw-visit-time">{timeText} </span>}
      <strong>{event.title}</strong>
      {client && <span> · {client}</span>}
      {assignees && <span> · {assignees}</span>}
      {conflict && <span className="fw-visit-conflict"> · Conflict</span>}
    </div>
  );
}

export default function Calendar(props: CalendarProps) {
  const { visits, team, clients, conflicts } = props;
  const events = useMemo(() => visits.map((v) => toInput(v, team, clients, conflicts.has(v.id))), [visits, team, clients, conflicts]);
  return (
    <FullCalendar
      key={`${props.view} ${props.date} ${props.firstDay}`}
      plugins={[dayGridPlugin, timeGridPlugin, interactionPlugin]}
      initialView={props.view}
      initialDate={props.date}
      timeZone="UTC"
      now={`${props.now}:00`}
      firstDay={props.firstDay}
      headerToolbar={false}
      height="auto"
      slotMinTime="06:00:00"
      slotMaxTime="21:00:00"
      scrollTime="07:00:00"
      nowIndicator
      slotEventOverlap={false}
      dayHeaderFormat={{ weekday: "short", day: "numeric" }}
      editable
      eventResizableFromStart={false}
      selectable
      selectMirror
      droppable
      eventInteractive
      dayMaxEvents={4}
      events={events}
      eventContent={Content}
      eventClick={(info) => {
        info.jsEvent.preventDefault();
        props.onOpen(Number(info.event.id));
      }}
      eventDrop={(info: EventDropArg) => {
        // FullCalendar already draws the visit where it was dropped (it lands at once); the
        // query cache takes the same change, and a refusal restores the cache, which redraws it.
        props.onMove(Number(info.event.id), changeOf(info.event.start ?? new Date(), info.event.end, info.event.allDay));
      }}
      eventResize={(info: EventResizeDoneArg) => {
        props.onMove(Number(info.event.id), changeOf(info.event.start ?? new Date(), info.event.end, info.event.allDay));
      }}
      select={(info) => {
        const timed = !info.allDay;
        props.onSelect({ date: dateOf(info.start), start_time: timed ? timeOf(info.start) : null, end_time: timed ? timeOf(info.end) : null, all_day: !timed });
        info.view.calendar.unselect();
      }}
      drop={(info: DropArg) => {
        const jobId = Number(info.draggedEl.dataset.jobId);
        if (jobId) props.onDropJob(jobId, dateOf(info.date), info.allDay ? null : timeOf(info.date));
      }}
    />
  );
}
