// The job form's "Repeats" presets as RRULE values and back (A140): a stored
// rule the presets can say is shown as its preset, any other as "Custom" with
// the rule itself in "Rule".
import { byWeekday, dateOfUntil, isWeekday, ruleParts, ruleText, untilOf, type Weekday, weekdayOf } from '../../lib/rrule.ts';

export const REPEATS = [
  { value: 'never', label: 'Never' },
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
  { value: 'every-2-weeks', label: 'Every 2 weeks' },
  { value: 'every-4-weeks', label: 'Every 4 weeks' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'custom', label: 'Custom' },
] as const;
export type Repeats = (typeof REPEATS)[number]['value'];
export const asRepeats = (v: string): Repeats => REPEATS.find((r) => r.value === v)?.value ?? 'never';

/** The weeks between visits of the weekly presets. */
export const WEEKS: Partial<Record<Repeats, number>> = { weekly: 1, 'every-2-weeks': 2, 'every-4-weeks': 4 };

export const DAY_LABELS: Record<Weekday, string> = { MO: 'Mon', TU: 'Tue', WE: 'Wed', TH: 'Thu', FR: 'Fri', SA: 'Sat', SU: 'Sun' };

export const INVOICING = [
  { value: 'manual', label: 'Manually' },
  { value: 'per_visit', label: 'After each visit' },
  { value: 'monthly', label: 'Monthly' },
] as const;
export type Invoicing = (typeof INVOICING)[number]['value'];
export const asInvoicing = (v: string | null | undefined): Invoicing => INVOICING.find((i) => i.value === v)?.value ?? 'manual';

export type Ends = 'never' | 'on' | 'after';

/** The form's schedule, as typed (times and numbers as the inputs hold them). */
export interface ScheduleValues extends Record<string, unknown> {
  repeats: Repeats;
  days: Weekday[];
  ends: Ends;
  until: string;
  count: string;
  /** The rule as typed under "Custom". */
  rrule: string;
  starts_on: string;
  start_time: string;
  end_time: string;
  all_day: boolean;
  assignee_ids: string[];
}

/** A job's stored schedule, as E20 answers it. */
export interface StoredSchedule {
  rrule: string;
  starts_on: string;
  start_time: string | null;
  end_time: string | null;
  all_day: boolean;
  assignee_ids: string[];
}

/** The schedule part of a create or update body. */
export type ScheduleBody = StoredSchedule;

/** The form's values of a stored schedule (none: a new job's defaults, starting `today`). */
export function scheduleValues(stored: StoredSchedule | null, today: string): ScheduleValues {
  const base: ScheduleValues = {
    repeats: 'never',
    days: [],
    ends: 'never',
    until: '',
    count: '',
    rrule: '',
    starts_on: stored?.starts_on ?? today,
    start_time: stored?.start_time ?? '',
    end_time: stored?.end_time ?? '',
    all_day: stored?.all_day ?? false,
    assignee_ids: stored?.assignee_ids ?? [],
  };
  if (!stored) return base;
  const { COUNT, UNTIL, ...core } = ruleParts(stored.rrule);
  const ends: Ends = COUNT ? 'after' : UNTIL ? 'on' : 'never';
  const preset = { ...base, ends, count: COUNT ?? '', until: UNTIL ? dateOfUntil(UNTIL) : '', rrule: stored.rrule };
  // Defaults that say nothing (INTERVAL=1, WKST=MO) do not make a rule custom.
  if (core.INTERVAL === '1') delete core.INTERVAL;
  if (core.WKST === 'MO') delete core.WKST;
  const keys = Object.keys(core).toSorted().join(' ');
  if (core.FREQ === 'DAILY' && keys === 'FREQ') return { ...preset, repeats: 'daily' };
  if (core.FREQ === 'MONTHLY' && (keys === 'FREQ' || (keys === 'BYMONTHDAY FREQ' && Number(core.BYMONTHDAY) === Number(stored.starts_on.slice(8, 10))))) return { ...preset, repeats: 'monthly' };
  const weeks = Number(core.INTERVAL ?? '1');
  const repeats = Object.entries(WEEKS).find(([, n]) => n === weeks)?.[0];
  if (core.FREQ === 'WEEKLY' && repeats && (keys === 'FREQ' || keys === 'BYDAY FREQ' || keys === 'BYDAY FREQ INTERVAL' || keys === 'FREQ INTERVAL')) {
    const days = (core.BYDAY ?? weekdayOf(stored.starts_on)).split(',');
    if (days.every(isWeekday)) return { ...preset, repeats: asRepeats(repeats), days: days.toSorted(byWeekday) };
  }
  return { ...preset, repeats: 'custom' };
}

/** The RRULE the form's values say ("" for "Never"). */
export function ruleOf(s: ScheduleValues): string {
  if (s.repeats === 'never') return '';
  if (s.repeats === 'custom') return s.rrule.trim();
  const weeks = WEEKS[s.repeats];
  const ends = s.ends === 'on' && s.until ? { UNTIL: untilOf(s.until) } : s.ends === 'after' && s.count.trim() ? { COUNT: s.count.trim() } : {};
  if (s.repeats === 'daily') return ruleText({ FREQ: 'DAILY', ...ends });
  if (s.repeats === 'monthly') return ruleText({ FREQ: 'MONTHLY', BYMONTHDAY: /^\d{4}-\d\d-\d\d$/.test(s.starts_on) ? String(Number(s.starts_on.slice(8, 10))) : undefined, ...ends });
  const days = s.days.length ? s.days.toSorted(byWeekday) : /^\d{4}-\d\d-\d\d$/.test(s.starts_on) ? [weekdayOf(s.starts_on)] : [];
  return ruleText({ FREQ: 'WEEKLY', INTERVAL: weeks === 1 ? undefined : String(weeks), BYDAY: days.join(',') || undefined, ...ends });
}

/** The body's `schedule` ("Never": none). */
export function scheduleBody(s: ScheduleValues): ScheduleBody | null {
  if (s.repeats === 'never') return null;
  return {
    rrule: ruleOf(s),
    starts_on: s.starts_on,
    start_time: s.all_day ? null : s.start_time || null,
    end_time: s.all_day ? null : s.end_time || null,
    all_day: s.all_day,
    assignee_ids: s.assignee_ids,
  };
}

const samePart = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** Whether a body's schedule is the one stored: an unchanged schedule is not sent again, so saving a job's title leaves its visits alone (A142). */
export function sameSchedule(body: ScheduleBody, stored: StoredSchedule): boolean {
  return (
    samePart(ruleParts(body.rrule), ruleParts(stored.rrule)) &&
    body.starts_on === stored.starts_on &&
    body.all_day === stored.all_day &&
    (body.all_day || (body.start_time === stored.start_time && body.end_time === stored.end_time)) &&
    body.assignee_ids.toSorted().join() === stored.assignee_ids.toSorted().join()
  );
}

/** Checks made before asking the server, by form path. */
export function scheduleErrors(s: ScheduleValues): Record<string, string | null> {
  if (s.repeats === 'never') return {};
  return {
    'schedule.starts_on': /^\d{4}-\d\d-\d\d$/.test(s.starts_on) ? null : 'Enter the first date',
    'schedule.rrule': s.repeats === 'custom' && !s.rrule.trim() ? 'Enter a rule, such as FREQ=WEEKLY;BYDAY=TU' : null,
    'schedule.start_time': s.all_day || s.start_time ? null : 'Enter a start time, or choose All day',
    'schedule.end_time': s.all_day || s.end_time ? null : 'Enter an end time, or choose All day',
    'schedule.until': s.repeats !== 'custom' && s.ends === 'on' && !s.until ? 'Enter the last date' : null,
    'schedule.count': s.repeats !== 'custom' && s.ends === 'after' && !/^\d+$/.test(s.count.trim()) ? 'Enter a number of visits' : null,
  };
}

/** Where the job form shows what the API says about a field (A140). */
export function jobErrorPath(apiField: string): string | undefined {
  if (apiField === 'schedule' || apiField === 'type') return 'schedule.repeats';
  if (apiField.startsWith('schedule.assignee_ids')) return 'schedule.assignee_ids';
  if (apiField === 'schedule.effective_from') return 'schedule.starts_on';
  if (apiField.startsWith('schedule.') || apiField === 'invoicing') return apiField;
  return undefined;
}
