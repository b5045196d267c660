// RRULE values (RFC 5545, without DTSTART) as the job form's presets and the
// schedule's "This and following visits" read and write them. The API parses,
// checks, expands and words rules (its answer is the authority, errors
// included): here a rule is only split into its parts and joined again (A141).

export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The weekday of a `YYYY-MM-DD` date. */
export const weekdayOf = (date: string): Weekday => WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7];

const DAY_NAMES: readonly string[] = WEEKDAYS;
export const isWeekday = (value: string): value is Weekday => DAY_NAMES.includes(value);
/** Weekdays in calendar order, Monday first. */
export const byWeekday = (a: string, b: string) => DAY_NAMES.indexOf(a) - DAY_NAMES.indexOf(b);

/** "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" -> {FREQ: 'WEEKLY', INTERVAL: '2', BYDAY: 'TU'}, in the rule's order, names upper-cased. */
export function ruleParts(rrule: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of rrule.trim().replace(/^RRULE:/i, '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) parts[part.slice(0, at).trim().toUpperCase()] = part.slice(at + 1).trim().toUpperCase();
  }
  return parts;
}

/** The parts joined again, FREQ first; empty values left out. */
export function ruleText(parts: Record<string, string | undefined>): string {
  const { FREQ, ...rest } = parts;
  return [['FREQ', FREQ], ...Object.entries(rest)]
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
}

/** A date input's `YYYY-MM-DD` as UNTIL's `YYYYMMDD`, and back. */
export const untilOf = (date: string) => date.replaceAll('-', '');
export const dateOfUntil = (until: string) => (/^\d{8}/.test(until) ? `${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}` : '');

/**
 * The rule of a series whose visit on `fromDate` now falls on `toDate`: a weekly
 * rule's BYDAY swaps the old weekday for the new one (the other days stay), a
 * monthly rule on that day of the month takes the new day; the rest of the rule
 * is kept, its phase coming from the new start (A143).
 */
export function movedRule(rrule: string, fromDate: string, toDate: string): string {
  const parts = ruleParts(rrule);
  if (parts.FREQ === 'MONTHLY' && parts.BYMONTHDAY && Number(parts.BYMONTHDAY) === Number(fromDate.slice(8, 10))) {
    return ruleText({ ...parts, BYMONTHDAY: String(Number(toDate.slice(8, 10))) });
  }
  const from = weekdayOf(fromDate);
  const to = weekdayOf(toDate);
  if (from === to || parts.FREQ !== 'WEEKLY' || !parts.BYDAY) return rrule;
  const days = parts.BYDAY.split(',');
  if (!days.includes(from)) return rrule;
  const next = [...new Set(days.map((d) => (d === from ? to : d)))].toSorted(byWeekday);
  return ruleText({ ...parts, BYDAY: next.join(',') });
}
