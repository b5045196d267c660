// Day, Week and Month through FullCalendar's MIT packages. Visits keep the
// workspace's wall clock (date + HH:MM), so the calendar runs in "UTC" and is
// handed those wall times as they are: what it shows is the workspace's time,
// whatever the browser's zone.
import type { DateSelectArg, EventContentArg, EventDropArg, EventInput } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin, { type DropArg, type EventResizeDoneArg } from '@fullcalendar/interaction';
import FullCalendar from '@fullcalendar/react';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useMemo, useRef, useState } from 'react';
import { addDays, formatClock, formatClockRange, nowIn } from '../../lib/format.ts';
import { colourOf, isRecurring, type Member, memberName, type Visit, type VisitChange } from './data.ts';

export type CalendarView = 'timeGridDay' | 'timeGridWeek' | 'dayGridMonth';

export interface CalendarProps {
  view: CalendarView;
  date: string;
  firstDay: 0 | 1;
  /** The workspace's time zone: "now" (today, the now line) is its wall clock. */
  timeZone: string | null;
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
      repeats: isRecurring(v),
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

// A visit's text as DOM nodes, not a React component: FullCalendar mounts a React
// root per event for component content, which made a drop redraw 300 of them
// (a drag landed in ~220 ms; see bench/RESULTS.md). textContent keeps it escaped.
function content({ event, timeText }: EventContentArg) {
  const { client, assignees, conflict, repeats } = event.extendedProps as { client: string; assignees: string; conflict: boolean; repeats: boolean };
  const el = (tag: string, text: string, className?: string) => {
    const node = document.createElement(tag);
    node.textContent = text;
    if (className) node.className = className;
    return node;
  };
  const box = document.createElement('div');
  box.className = 'fw-visit';
  if (timeText) box.append(el('span', `${timeText} `, 'fw-visit-time'));
  box.append(el('strong', event.title));
  if (client) box.append(el('span', ` · ${client}`));
  if (assignees) box.append(el('span', ` · ${assignees}`));
  if (conflict) box.append(el('span', ' · Conflict', 'fw-visit-conflict'));
  // A visit of a series: a sign to see, "Repeats" in its name to hear (A7).
  if (repeats) {
    const sign = el('span', ' ↻', 'fw-visit-repeats');
    sign.setAttribute('aria-hidden', 'true');
    box.append(sign, el('span', ' · Repeats', 'fw-hidden-text'));
  }
  return { domNodes: [box] };
}

// Options FullCalendar receives are the same objects at every render: a new one (an
// inline array, object or function) makes it process its options again, formatters
// included (a new Intl.DateTimeFormat per event's time: most of a drop's ~200 ms).
const PLUGINS = [dayGridPlugin, timeGridPlugin, interactionPlugin];
const DAY_HEADER = { weekday: 'short', day: 'numeric' } as const;
// A155: Month's column headers are weekdays ("Mon"): the grid holds several weeks, so a
// date there ("5 Mon") was only the current week's.
const VIEWS = { dayGridMonth: { dayHeaderFormat: { weekday: 'short' } } } as const;
// A157: the app's one time format (src/lib/format), each text kept: FullCalendar's own
// formatter makes a new Intl.DateTimeFormat for every event's range, at every redraw.
const timeTexts = new Map<string, string>();
const eventTime = ({ start, end }: { start: { marker: Date }; end?: { marker: Date } }) => {
  const key = `${start.marker.getTime()} ${end?.marker.getTime() ?? ''}`;
  let text = timeTexts.get(key);
  if (text === undefined) {
    text = formatClockRange(timeOf(start.marker), end ? timeOf(end.marker) : null);
    if (timeTexts.size > 5000) timeTexts.clear();
    timeTexts.set(key, text);
  }
  return text;
};
const slotLabel = ({ date }: { date: { marker: Date } }) => formatClock(timeOf(date.marker));

/**
 * A day of the Month grid is named by its visits and number as it shows them: FullCalendar
 * names the cell by its date alone (aria-labelledby), which axe refuses once the cell shows
 * visits (label-content-name-mismatch); the day number keeps its full date.
 */
function dayCellDidMount({ el }: { el: HTMLElement }) {
  el.removeAttribute('aria-labelledby');
}

/**
 * A154: each visit is a button (FullCalendar makes it focusable, Enter opens it) named by
 * what it shows (`content`): time, title, client, assignees, and "Repeats" for a visit of
 * a series (A7). The name comes from the content, not an aria-label: FullCalendar draws
 * new content when the clients' or team's names arrive, but mounts the element only once.
 */
function eventDidMount({ el }: { el: HTMLElement }) {
  el.setAttribute('role', 'button');
  el.tabIndex = 0;
}

/** FullCalendar's callbacks, made once, calling the latest props. */
function useHandlers(props: CalendarProps, shown: Shown) {
  const latest = useRef(props);
  latest.current = props;
  return useMemo(() => {
    // FullCalendar already draws the visit where it was dropped (it lands at once): it is
    // told that its events say so, the query cache takes the same change, and a refusal
    // restores the cache, which draws the visit back where it was.
    const moved = (info: EventDropArg | EventResizeDoneArg) => {
      const id = Number(info.event.id);
      const change = changeOf(info.event.start ?? new Date(), info.event.end, info.event.allDay);
      const visit = latest.current.visits.find((v) => v.id === id);
      if (visit) shown.adopt({ ...visit, ...change }, latest.current);
      latest.current.onMove(id, change);
    };
    return {
      eventClick: (info: { jsEvent: MouseEvent; event: { id: string } }) => {
        info.jsEvent.preventDefault();
        latest.current.onOpen(Number(info.event.id));
      },
      eventDrop: moved,
      eventResize: moved,
      select: (info: DateSelectArg) => {
        const timed = !info.allDay;
        latest.current.onSelect({ date: dateOf(info.start), start_time: timed ? timeOf(info.start) : null, end_time: timed ? timeOf(info.end) : null, all_day: !timed });
        info.view.calendar.unselect();
      },
      drop: (info: DropArg) => {
        const jobId = Number(info.draggedEl.dataset.jobId);
        if (jobId) latest.current.onDropJob(jobId, dateOf(info.date), info.allDay ? null : timeOf(info.date));
      },
    };
  }, [shown]);
}

type Look = { look: string; input: EventInput };
type Shown = { byId: Map<number, Look>; events: EventInput[]; adopt: (visit: Visit, props: CalendarProps) => void };

function lookOf(v: Visit, { team, clients, conflicts }: CalendarProps): Look {
  const input = toInput(v, team, clients, conflicts.has(v.id));
  return { look: JSON.stringify(input), input };
}

/**
 * The events FullCalendar is handed. It compares the array item by item and, on any
 * difference, parses and redraws every event (~100 ms for a week of 300 visits); so a
 * visit that looks the same keeps its input object, the order is the ids', an array that
 * is the same item by item is the one it already has (a refetch that brings nothing new
 * draws nothing), and a visit FullCalendar moved itself is adopted in that array as it
 * now looks (the drop draws nothing more).
 */
function useEvents(props: CalendarProps): { shown: Shown; events: EventInput[] } {
  const [shown] = useState<Shown>(() => ({
    byId: new Map(),
    events: [],
    adopt(visit, latest) {
      const look = lookOf(visit, latest);
      this.byId.set(visit.id, look);
      const i = this.events.findIndex((e) => e.id === String(visit.id));
      if (i >= 0) this.events[i] = look.input; // the very array FullCalendar holds
    },
  }));
  const { visits, team, clients, conflicts } = props;
  const events = useMemo(() => {
    const byId = new Map<number, Look>();
    // In the order of their ids, which no move changes (the API's order is by date).
    const events = visits.toSorted((a, b) => a.id - b.id).map((v) => {
      const look = lookOf(v, props);
      const before = shown.byId.get(v.id);
      const same = before?.look === look.look ? before : look;
      byId.set(v.id, same);
      return same.input;
    });
    const last = shown.events;
    shown.byId = byId;
    if (events.length !== last.length || events.some((e, i) => e !== last[i])) shown.events = events;
    return shown.events;
  }, [visits, team, clients, conflicts]); // props is read for these four
  return { shown, events };
}

export default function Calendar(props: CalendarProps) {
  const { shown, events } = useEvents(props);
  const handlers = useHandlers(props, shown);
  const { view, date, firstDay, timeZone } = props;
  // A function FullCalendar's own timer reads as the minutes pass: a `now` string that
  // changed with the minute was a changed option, and the next render after it (a drop's
  // refetch) redrew every visit.
  const now = useMemo(
    () => () => {
      const n = nowIn(timeZone);
      return `${n.date}T${n.time}:00`;
    },
    [timeZone],
  );
  // The same element while nothing it shows changed: FullCalendar's React wrapper
  // recomputes and redraws the whole calendar at every render it is given (~100 ms
  // for a week of 300 visits), even when no option changed.
  return useMemo(
    () => (
      <FullCalendar
        key={`${view} ${date} ${firstDay}`}
        plugins={PLUGINS}
        initialView={view}
        initialDate={date}
        timeZone="UTC"
        now={now}
        firstDay={firstDay}
        headerToolbar={false}
        height="auto"
        slotMinTime="06:00:00"
        slotMaxTime="21:00:00"
        scrollTime="07:00:00"
        nowIndicator
        slotEventOverlap={false}
        dayHeaderFormat={DAY_HEADER}
        views={VIEWS}
        eventTimeFormat={eventTime}
        slotLabelFormat={slotLabel}
        eventDidMount={eventDidMount}
        dayCellDidMount={dayCellDidMount}
        editable
        eventResizableFromStart={false}
        selectable
        selectMirror
        droppable
        eventInteractive
        dayMaxEvents={4}
        events={events}
        eventContent={content}
        eventClick={handlers.eventClick}
        eventDrop={handlers.eventDrop}
        eventResize={handlers.eventResize}
        select={handlers.select}
        drop={handlers.drop}
      />
    ),
    [events, view, date, firstDay, now, handlers],
  );
}
