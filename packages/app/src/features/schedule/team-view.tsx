// The Team view (A4): one column per member for a day, hours down the side (a
// CSS grid; FullCalendar's resource views are not open source). Drag a visit to
// another hour or member to move or reassign it; the keyboard path is the
// visit's button, which opens it and its "Edit" form, as in the other views.
// A timed one-day visit's bottom edge is a handle: drag it to another hour row to
// change when it ends (in quarter hours), as resizing does in Day and Week.
import { type DragEvent, type PointerEvent, useState } from 'react';
import { formatClock } from '../../lib/format.ts';
import { colourOf, isRecurring, type Member, memberName, type Visit, type VisitChange } from './data.ts';

const HOURS = Array.from({ length: 15 }, (_, i) => i + 6); // 06:00 to 20:00
const hh = (h: number) => String(h).padStart(2, '0');
const at = formatClock;
const hourLabel = (h: number) => formatClock(`${hh(h)}:00`);
const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
const clock = (m: number) => `${hh(Math.floor(m / 60))}:${hh(m % 60)}`;

/** Where a dropped visit lands: `hour` null is the all-day row. */
export function moveTo(v: Visit, fromMember: string | null, toMember: string, hour: number | null): VisitChange {
  const assignees = fromMember && fromMember !== toMember ? v.assignee_ids.map((a) => (a === fromMember ? toMember : a)) : v.assignee_ids.includes(toMember) ? v.assignee_ids : [...v.assignee_ids, toMember];
  const change: VisitChange = { assignee_ids: [...new Set(assignees)] };
  if (hour === null || v.all_day || !v.start_time) return change;
  const start = minutes(v.start_time);
  const length = v.end_time && v.end_date === v.start_date ? minutes(v.end_time) - start : 60;
  const from = hour * 60 + (start % 60);
  return { ...change, start_time: clock(from), end_time: clock(Math.min(from + length, 23 * 60 + 59)) };
}

/**
 * The end a resize handle released at (x, y) gives: the hour row under the pointer,
 * plus the quarter hours of the way down it; at least a quarter hour after the start.
 * Null off the hour rows (the all-day row, outside the grid).
 */
export function endAt(v: Visit, x: number, y: number): string | null {
  // The hour cell the point is in (a visit's box reaches over the cells below its first).
  const cell = document
    .elementsFromPoint(x, y)
    .map((el) => el.closest<HTMLElement>('.fw-team-cell'))
    .find((c) => {
      const r = c?.getBoundingClientRect();
      return r !== undefined && y >= r.top && y <= r.bottom && x >= r.left && x <= r.right;
    });
  const hour = cell?.dataset.hour;
  if (!cell || !hour || hour === 'all-day' || !v.start_time) return null;
  const box = cell.getBoundingClientRect();
  const quarters = Math.max(0, Math.min(4, Math.round(((y - box.top) / Math.max(1, box.height)) * 4)));
  const end = Number(hour) * 60 + quarters * 15;
  return clock(Math.min(Math.max(end, minutes(v.start_time) + 15), 23 * 60 + 59));
}

const FIRST = HOURS[0]! * 60;
const LAST = (HOURS[HOURS.length - 1]! + 1) * 60; // the end of the last hour row
/** One hour row's height (schedule.css `--fw-hour`). */
const HOUR_REM = 3;

/**
 * A156: where a timed visit sits in its member's column: from its start, as tall as it
 * lasts (clamped to the rows shown), side by side with the visits it overlaps. The box
 * is drawn in its first hour's cell and reaches down over the following ones.
 */
export function spans(visits: Visit[], date: string): Map<number, { top: number; height: number; lane: number; lanes: number }> {
  const timed = visits
    .filter((v) => !v.all_day && v.start_time && v.start_date === date)
    .map((v) => {
      const start = Math.min(Math.max(minutes(v.start_time!), FIRST), LAST - 15);
      const end = v.end_date === date && v.end_time ? minutes(v.end_time) : v.end_date > date ? LAST : start + 60;
      return { id: v.id, start, end: Math.min(Math.max(end, start + 15), LAST) };
    })
    .sort((a, b) => a.start - b.start || a.id - b.id);
  const out = new Map<number, { top: number; height: number; lane: number; lanes: number }>();
  // Groups of visits that overlap one another; in each, a visit takes the first lane free at its start.
  let group: { id: number; lane: number }[] = [];
  let laneEnds: number[] = [];
  const close = () => {
    for (const g of group) out.get(g.id)!.lanes = laneEnds.length;
    group = [];
    laneEnds = [];
  };
  for (const v of timed) {
    if (laneEnds.length && laneEnds.every((e) => e <= v.start)) close();
    let lane = laneEnds.findIndex((e) => e <= v.start);
    if (lane < 0) lane = laneEnds.push(v.end) - 1;
    else laneEnds[lane] = v.end;
    group.push({ id: v.id, lane });
    out.set(v.id, { top: (v.start % 60) / 60, height: (v.end - v.start) / 60, lane, lanes: 1 });
  }
  close();
  return out;
}

export function TeamView(props: { date: string; team: Member[]; visits: Visit[]; conflicts: Set<number>; onMove: (id: number, change: VisitChange) => void; onOpen: (id: number) => void }) {
  const { team, visits, date } = props;
  const [over, setOver] = useState<string | null>(null);
  // The visit whose end is being dragged, and the end it would get now.
  const [resizing, setResizing] = useState<{ id: number; end: string | null } | null>(null);
  // While a visit is dragged or resized, boxes let the pointer through to the hour cells under them.
  const [dragging, setDragging] = useState(false);
  const today = visits.filter((v) => v.start_date <= date && v.end_date >= date && v.status !== 'cancelled');
  const cellOf = (v: Visit) => (v.all_day || !v.start_time || v.start_date < date ? null : Math.max(6, Math.min(20, Number(v.start_time.slice(0, 2)))));

  const drop = (member: string, hour: number | null) => (e: DragEvent) => {
    e.preventDefault();
    setOver(null);
    setDragging(false);
    const [id, from] = e.dataTransfer.getData('text/plain').split(' ');
    const v = visits.find((x) => x.id === Number(id));
    if (v) props.onMove(v.id, moveTo(v, from || null, member, hour));
  };
  const target = (member: string, hour: number | null) => ({
    onDragOver: (e: DragEvent) => {
      e.preventDefault();
      setOver(`${member} ${hour}`);
    },
    onDragLeave: () => setOver(null),
    onDrop: drop(member, hour),
    'data-member': member,
    'data-hour': hour === null ? 'all-day' : hh(hour),
    className: `fw-team-cell${over === `${member} ${hour}` ? ' fw-team-over' : ''}`,
  });

  const resizable = (v: Visit) => !v.all_day && v.start_time !== null && v.start_date === date && v.end_date === date;
  const handle = (v: Visit) => ({
    onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
      e.preventDefault();
      e.currentTarget.setPointerCapture(e.pointerId);
      setResizing({ id: v.id, end: v.end_time });
    },
    onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
      if (resizing?.id !== v.id) return;
      const end = endAt(v, e.clientX, e.clientY);
      if (end && end !== resizing.end) setResizing({ id: v.id, end });
    },
    onPointerUp: (e: PointerEvent<HTMLDivElement>) => {
      if (resizing?.id !== v.id) return;
      setResizing(null);
      const end = endAt(v, e.clientX, e.clientY);
      // One PUT, as a resize in Day and Week; the form's "End time" is its keyboard path.
      if (end && end !== v.end_time) props.onMove(v.id, { end_date: date, end_time: end, multi_day: false });
    },
    onPointerCancel: () => setResizing(null),
  });
  const endOf = (v: Visit) => (resizing?.id === v.id ? resizing.end : v.end_time);

  const placed = new Map(team.map((m) => [m.user_id, spans(today.filter((v) => v.assignee_ids.includes(m.user_id)), date)]));
  const card = (v: Visit, member: string) => {
    const span = placed.get(member)?.get(v.id);
    // The box being resized shows its new end as the pointer moves.
    const end = resizing?.id === v.id && resizing.end && span ? (minutes(resizing.end) - (cellOf(v)! + span.top) * 60) / 60 : undefined;
    const style = span
      ? {
          position: 'absolute' as const,
          top: `${span.top * HOUR_REM}rem`,
          height: `${Math.max(0.25, end ?? span.height) * HOUR_REM - 0.15}rem`,
          left: `${(span.lane / span.lanes) * 100}%`,
          width: `${100 / span.lanes}%`,
        }
      : undefined;
    return (
    <div key={v.id} className={`fw-team-card${span ? ' fw-team-timed' : ''}`} style={style}>
      <button
        type="button"
        draggable
        className={`fw-team-visit${props.conflicts.has(v.id) ? ' fw-conflict' : ''}`}
        style={{ background: colourOf(team, member) }}
        onDragStart={(e) => {
          e.dataTransfer.setData('text/plain', `${v.id} ${member}`);
          e.dataTransfer.effectAllowed = 'move';
          // After the browser took the drag image from the box.
          setTimeout(() => setDragging(true), 0);
        }}
        onDragEnd={() => setDragging(false)}
        onClick={() => props.onOpen(v.id)}
      >
        {v.start_time && !v.all_day ? `${at(v.start_time)}${endOf(v) ? ` – ${at(endOf(v))}` : ''} ` : ''}
        <strong>{v.name ?? 'Visit'}</strong>
        {props.conflicts.has(v.id) ? ' · Conflict' : ''}
        {isRecurring(v) && (
          <>
            <span aria-hidden="true"> ↻</span>
            <span className="fw-hidden-text"> · Repeats</span>
          </>
        )}
      </button>
      {resizable(v) && <div className="fw-team-resize" data-resize={v.id} aria-hidden="true" {...handle(v)} />}
    </div>
    );
  };

  return (
    <div className="fw-team-scroll">
      <div className={`fw-team${dragging || resizing ? ' fw-team-moving' : ''}`} role="grid" aria-label="Team" style={{ gridTemplateColumns: `5.5rem repeat(${team.length}, minmax(9rem, 1fr))` }}>
        <div role="row" className="fw-team-row">
          <div role="columnheader" className="fw-team-head">
            Time
          </div>
          {team.map((m) => (
            <div role="columnheader" key={m.user_id} className="fw-team-head" style={{ borderTop: `4px solid ${colourOf(team, m.user_id)}` }}>
              {memberName(m)}
            </div>
          ))}
        </div>
        {[null, ...HOURS].map((h) => (
          <div role="row" key={String(h)} className="fw-team-row">
            <div role="rowheader" className="fw-team-hour">
              {h === null ? 'All day' : hourLabel(h)}
            </div>
            {team.map((m) => (
              <div role="gridcell" key={m.user_id} {...target(m.user_id, h)}>
                {today.filter((v) => v.assignee_ids.includes(m.user_id) && cellOf(v) === h).map((v) => card(v, m.user_id))}
              </div>
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
