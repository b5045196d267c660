// Wall-clock times in a workspace's time zone (its `timezone`; null or an
// unknown name counts as UTC). Records keep dates and times as the workspace's
// wall clock; these turn them into instants and back.

/**
 * Date.UTC for every year 0000 to 9999: Date.UTC reads years 0 to 99 as 1900 to
 * 1999, setUTCFullYear does not.
 */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, minute, 0, 0);
  return d.getTime();
}

/** The UTC midnight (ms) of a `YYYY-MM-DD` date. */
export const dayMs = (date: string): number => utcMs(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(timeZone: string | null | undefined): Intl.DateTimeFormat | null {
  if (!timeZone || timeZone === 'UTC') return null;
  if (!formatters.has(timeZone)) {
    try {
      formatters.set(
        timeZone,
        new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }),
      );
    } catch {
      formatters.set(timeZone, null); // an unknown zone name counts as UTC
    }
  }
  return formatters.get(timeZone) ?? null;
}

/** The wall clock (as UTC-based minutes) at an instant (minutes). */
function wallAt(fmt: Intl.DateTimeFormat, instantMin: number): number {
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(instantMin * 60_000))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return utcMs(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) / 60_000;
}

/** Minutes the zone is ahead of UTC at an instant (minute resolution). */
const offsetAt = (fmt: Intl.DateTimeFormat, instantMin: number): number => wallAt(fmt, instantMin) - instantMin;

/**
 * The instant (UTC minutes) of a wall-clock time (UTC-based minutes) in a zone. A
 * time that happens twice (clocks going back) is the first one; a time skipped
 * (clocks going forward) is read with the offset before the change, like
 * Temporal's "compatible".
 */
export function zonedMinutes(wall: number, timeZone: string | null | undefined): number {
  const fmt = formatterFor(timeZone);
  if (!fmt) return wall;
  const before = offsetAt(fmt, wall - 1440);
  const after = offsetAt(fmt, wall + 1440);
  const valid = [...new Set([before, after])].map((o) => wall - o).filter((t) => wall - t === offsetAt(fmt, t));
  return valid.length ? Math.min(...valid) : wall - before;
}

/** The instant (ms) of `date` (YYYY-MM-DD) at `time` (HH:MM) on the zone's wall clock. */
export function zonedInstant(date: string, time: string, timeZone: string | null | undefined): number {
  const wall = dayMs(date) / 60_000;
  return zonedMinutes(wall + Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)), timeZone) * 60_000;
}

/** The zone's calendar date (YYYY-MM-DD) at an instant (ms). */
export function zonedDate(ms: number, timeZone: string | null | undefined): string {
  const fmt = formatterFor(timeZone);
  const wall = fmt ? wallAt(fmt, Math.floor(ms / 60_000)) * 60_000 : ms;
  return new Date(wall).toISOString().slice(0, 10);
}

/** The zone's wall clock at an instant (ms): date `YYYY-MM-DD` and time `HH:MM`. */
export function zonedWallClock(ms: number, timeZone: string | null | undefined): { date: string; time: string } {
  const fmt = formatterFor(timeZone);
  const wall = new Date(fmt ? wallAt(fmt, Math.floor(ms / 60_000)) * 60_000 : ms).toISOString();
  return { date: wall.slice(0, 10), time: wall.slice(11, 16) };
}
