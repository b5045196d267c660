// Dates and times of time entries and timesheets (D9, D30). Dates are
// `YYYY-MM-DD` calendar days and times `HH:MM` wall-clock times: no instant is
// stored, so day arithmetic runs on UTC midnights, where every day has 24 hours.

import { invalidField } from '../kernel/errors.ts';
import { dayMs, zonedMinutes } from './zoned-time.ts';

export type WeekStart = 'monday' | 'sunday';

const DAY_MS = 86_400_000;

const formatDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The schema's pattern lets 2024-02-30 through; this says whether the day exists. */
export function isCalendarDate(date: string): boolean {
  return /^\d{4}-\d\d-\d\d$/.test(date) && formatDay(dayMs(date)) === date;
}

export function addDays(date: string, days: number): string {
  return formatDay(dayMs(date) + days * DAY_MS);
}

/** The week holding `date`: D9 (workspace `week_start`, default Monday), D30 (end = start + 6). */
export function weekOf(date: string, weekStart: WeekStart = 'monday'): { start_date: string; end_date: string } {
  const ms = dayMs(date);
  const weekday = new Date(ms).getUTCDay(); // 0 = Sunday
  const back = weekStart === 'sunday' ? weekday : (weekday + 6) % 7;
  const start = ms - back * DAY_MS;
  const week = { start_date: formatDay(start), end_date: formatDay(start + 6 * DAY_MS) };
  // Dates are years 0000 to 9999 (text that sorts as it reads): a week reaching past them has no timesheet.
  if (!isCalendarDate(week.start_date) || !isCalendarDate(week.end_date)) throw invalidField(['start_date'], 'must fall in a week within the years 0000 to 9999');
  return week;
}

export const weekStartOf = (value: unknown): WeekStart => (value === 'sunday' ? 'sunday' : 'monday');

/** `date` + `time` as wall-clock minutes (UTC-based), for ordering and differences. */
const wallMinutes = (date: string, time: string): number => dayMs(date) / 60_000 + Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** Rounded to two decimals, half away from zero. */
export function round2(n: number): number {
  return (Math.sign(n) * Math.round(Math.abs(n) * 100 + 1e-9)) / 100;
}

/**
 * D9: the hours between `start_date start_time` and `end_date end_time`, to two
 * decimals. Times are the workspace's wall clock, so a shift across a daylight-saving
 * change counts the hours actually elapsed (null or unknown zone: UTC).
 */
export function hoursBetween(startDate: string, startTime: string, endDate: string, endTime: string, timeZone?: string | null): number {
  const minutes = zonedMinutes(wallMinutes(endDate, endTime), timeZone) - zonedMinutes(wallMinutes(startDate, startTime), timeZone);
  return Math.max(0, round2(minutes / 60));
}

export interface Span {
  start_date: string;
  end_date: string;
  start_time?: string | null;
  end_time?: string | null;
}

/**
 * The rules every dated record shares: real calendar days, `end_date` not before
 * `start_date`, and on a single day `end_time` not before `start_time`.
 * Returns the failures as D4 details.
 */
export function spanProblems(span: Span): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  for (const field of ['start_date', 'end_date'] as const) {
    if (!isCalendarDate(span[field])) problems.push({ path: [field], message: 'must be a calendar date (YYYY-MM-DD)' });
  }
  if (problems.length) return problems;
  if (span.end_date < span.start_date) problems.push({ path: ['end_date'], message: 'must not be before start_date' });
  else if (span.end_date === span.start_date && span.start_time && span.end_time && span.end_time < span.start_time) {
    problems.push({ path: ['end_time'], message: 'must not be before start_time on the same day' });
  }
  return problems;
}
