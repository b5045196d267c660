// Every amount and date the app shows is formatted by the server's own pure code
// (src/domain), the code behind PDFs and emails (A2): imported, never copied.
import { formatDate, formatMoney, workspaceCurrency } from '../../../../src/domain/format.ts';
import { zonedDate, zonedWallClock } from '../../../../src/domain/zoned-time.ts';
import { addDays, weekOf, type WeekStart } from '../../../../src/domain/weeks.ts';

export { addDays, weekOf, type WeekStart };

export { formatDate, formatMoney, workspaceCurrency };

export interface WorkspaceLike {
  currency: string | null;
  country: string | null;
  timezone?: string | null;
}

/**
 * An amount in the workspace's currency (its own, else its country's: F101); nothing
 * for an amount the API left out (a member's jobs carry no money fields, A14).
 */
export const money = (amount: number | undefined, workspace: WorkspaceLike) => (amount === undefined ? '' : formatMoney(amount, workspaceCurrency(workspace)));

/** Today's date (YYYY-MM-DD) in the workspace's timezone. */
export const todayIn = (timezone: string | null | undefined, now = Date.now()) => zonedDate(now, timezone);

const timeFormats = new Map<string, Intl.DateTimeFormat>();
function zoned(timezone: string | null | undefined, options: Intl.DateTimeFormatOptions, key: string): Intl.DateTimeFormat {
  const tz = timezone || 'UTC';
  let f = timeFormats.get(`${key} ${tz}`);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en', { ...options, timeZone: tz });
    } catch {
      f = new Intl.DateTimeFormat('en', { ...options, timeZone: 'UTC' }); // an unknown zone name: UTC rather than nothing
    }
    timeFormats.set(`${key} ${tz}`, f);
  }
  return f;
}

/**
 * An instant (`created_at`, `updated_at`) as the date it was in the workspace's
 * timezone: "Mar 5, 2026". Never the instant's UTC date (A165: in the evening west of
 * Greenwich that is already tomorrow).
 */
export const formatInstantDate = (iso: string, timezone: string | null | undefined) => formatDate(zonedDate(Date.parse(iso), timezone));

/** The workspace's wall clock now: date `YYYY-MM-DD`, time `HH:MM` (visits and time entries are kept that way). */
export const nowIn = (timezone: string | null | undefined, now = Date.now()) => zonedWallClock(now, timezone);

/** An instant as a time of day in the workspace's timezone: "9:30 AM". */
export const formatTime = (iso: string, timezone: string | null | undefined) => zoned(timezone, { timeStyle: 'short' }, 't').format(new Date(iso));

/**
 * A wall-clock time of the workspace ("HH:MM", as visits and time entries keep it) in the
 * app's one time format (formatTime's): "9:30 AM". Every time of day the app shows goes
 * through this or formatTime (A13, A157).
 */
export const formatClock = (hhmm: string | null | undefined) => (hhmm ? formatTime(`2000-01-01T${hhmm.slice(0, 5)}:00Z`, 'UTC') : '');

/** "9:00 AM – 10:30 AM", or the start alone without an end. */
export const formatClockRange = (start: string | null | undefined, end: string | null | undefined) =>
  start ? (end ? `${formatClock(start)} – ${formatClock(end)}` : formatClock(start)) : '';

/** An instant as date and time in the workspace's timezone: "Mar 5, 2026, 9:30 AM". */
export const formatDateTime = (iso: string, timezone: string | null | undefined) =>
  zoned(timezone, { dateStyle: 'medium', timeStyle: 'short' }, 'dt').format(new Date(iso));

/** "5 minutes ago", "yesterday": how long ago an instant was. */
const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
export function formatAgo(iso: string, now = Date.now()): string {
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, 'second'],
    [3600, 'minute'],
    [86400, 'hour'],
    [604800, 'day'],
    [2629800, 'week'],
    [31557600, 'month'],
  ];
  let unit: Intl.RelativeTimeFormatUnit = 'year';
  let div = 31557600;
  for (const [limit, u] of steps) {
    if (Math.abs(s) < limit) {
      unit = u;
      break;
    }
  }
  const size: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400, week: 604800, month: 2629800, year: 31557600 };
  div = size[unit];
  return RELATIVE.format(Math.round(s / div), unit);
}

/** "awaiting_response" -> "Awaiting response". */
export const statusLabel = (status: string) => (status.charAt(0).toUpperCase() + status.slice(1)).replaceAll('_', ' ');
