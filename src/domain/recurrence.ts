import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';

// E20: a recurring job's rule, an RFC 5545 RRULE value without DTSTART. Parsing and
// validation are ours (the contract names which parts are understood and how each
// error is worded); the expansion is rrule-temporal's, on Temporal, in the
// workspace's time zone (F210). Pure and browser-safe: the web app bundles it too.

export const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const PARTS = ['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'WKST', 'COUNT', 'UNTIL'] as const;
type Part = (typeof PARTS)[number];

/** The most visits a rule may make (COUNT's ceiling, and per horizon: E20). */
export const MAX_OCCURRENCES = 1000;

export interface WeekdayRef {
  /** The ordinal (`-1` for "last"), absent for every such weekday. */
  n?: number;
  day: Weekday;
}

export interface Rule {
  freq: Frequency;
  interval: number;
  byDay: WeekdayRef[];
  byMonthDay: number[];
  byMonth: number[];
  bySetPos: number[];
  wkst?: 'MO' | 'SU';
  count?: number;
  /** `YYYY-MM-DD`, inclusive. */
  until?: string;
  /** The rule as it is stored and expanded: parts upper-cased, in the order given. */
  text: string;
}

export type Parsed = { ok: true; rule: Rule } | { ok: false; message: string };

const isWeekday = (s: string): s is Weekday => (WEEKDAYS as readonly string[]).includes(s);
const isPart = (s: string): s is Part => (PARTS as readonly string[]).includes(s);
const wholeIn = (v: string, min: number, max: number): number | null => {
  if (!/^[+-]?\d{1,4}$/.test(v)) return null;
  const n = Number(v);
  return n >= min && n <= max ? n : null;
};
const list = (v: string) => v.split(',');

/** A `YYYY-MM-DD` that names a real day. */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}
const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

class RuleError extends Error {}
const fail = (message: string): never => {
  throw new RuleError(message);
};

/**
 * Parses and validates an RRULE value: each error names the part (`BYDAY: "XX"
 * is not a weekday`). Parts are case-insensitive; the stored text is upper case.
 */
export function parseRule(input: string): Parsed {
  try {
    return { ok: true, rule: parse(input) };
  } catch (err) {
    if (err instanceof RuleError) return { ok: false, message: err.message };
    throw err;
  }
}

function parse(input: string): Rule {
  const text = input.trim().replace(/^RRULE:/i, '').toUpperCase();
  if (!text) fail('the rule is empty (e.g. FREQ=WEEKLY;BYDAY=TU)');
  const values = new Map<Part, string>();
  for (const pair of text.split(';')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !name) fail(`"${pair}" is not a PART=VALUE pair`);
    if (!isPart(name)) fail(`${name}: not a part this API understands (${PARTS.join(', ')})`);
    if (values.has(name as Part)) fail(`${name}: given twice`);
    const value = pair.slice(eq + 1);
    if (!value) fail(`${name}: has no value`);
    values.set(name as Part, value);
  }
  const freqText = values.get('FREQ');
  if (!freqText) fail('FREQ: required (DAILY, WEEKLY, MONTHLY or YEARLY)');
  if (!(FREQUENCIES as readonly string[]).includes(freqText!)) fail(`FREQ: "${freqText}" is not DAILY, WEEKLY, MONTHLY or YEARLY`);
  const freq = freqText as Frequency;
  const rule: Rule = { freq, interval: 1, byDay: [], byMonthDay: [], byMonth: [], bySetPos: [], text };

  const interval = values.get('INTERVAL');
  if (interval !== undefined) rule.interval = wholeIn(interval, 1, 99) ?? fail(`INTERVAL: "${interval}" is not a whole number from 1 to 99`);

  const byDay = values.get('BYDAY');
  if (byDay !== undefined) {
    for (const item of list(byDay)) {
      const m = /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(item);
      const day = m?.[2];
      if (!m || !day || !isWeekday(day)) fail(`BYDAY: "${item}" is not a weekday (MO, TU, WE, TH, FR, SA, SU)`);
      const ordinal = m![1];
      if (ordinal !== undefined) {
        if (freq !== 'MONTHLY' && freq !== 'YEARLY') fail(`BYDAY: "${item}" has an ordinal, which only FREQ=MONTHLY or YEARLY allows`);
        const limit = freq === 'MONTHLY' && !values.has('BYMONTH') ? 5 : 53;
        const n = Number(ordinal);
        if (n === 0 || Math.abs(n) > limit) fail(`BYDAY: "${item}": the ordinal must be 1 to ${limit} or -1 to -${limit}`);
        rule.byDay.push({ n, day: day as Weekday });
      } else rule.byDay.push({ day: day as Weekday });
    }
  }

  const byMonthDay = values.get('BYMONTHDAY');
  if (byMonthDay !== undefined) {
    if (freq === 'WEEKLY') fail('BYMONTHDAY: not allowed with FREQ=WEEKLY');
    for (const item of list(byMonthDay)) {
      const n = wholeIn(item, -1, 31);
      if (n === null || n === 0) fail(`BYMONTHDAY: "${item}" is not a day from 1 to 31 or -1`);
      rule.byMonthDay.push(n!);
    }
  }

  const byMonth = values.get('BYMONTH');
  if (byMonth !== undefined) {
    for (const item of list(byMonth)) {
      const n = wholeIn(item, 1, 12);
      if (n === null || item.startsWith('+') || item.startsWith('-')) fail(`BYMONTH: "${item}" is not a month from 1 to 12`);
      rule.byMonth.push(n!);
    }
  }

  const bySetPos = values.get('BYSETPOS');
  if (bySetPos !== undefined) {
    if (freq !== 'MONTHLY') fail('BYSETPOS: only FREQ=MONTHLY allows it');
    if (!rule.byDay.length && !rule.byMonthDay.length) fail('BYSETPOS: needs BYDAY or BYMONTHDAY to pick from');
    for (const item of list(bySetPos)) {
      const n = wholeIn(item, -31, 31);
      if (n === null || n === 0) fail(`BYSETPOS: "${item}" is not a position from 1 to 31 or -1 to -31`);
      rule.bySetPos.push(n!);
    }
  }

  const wkst = values.get('WKST');
  if (wkst !== undefined) {
    if (wkst !== 'MO' && wkst !== 'SU') fail(`WKST: "${wkst}" is not MO or SU`);
    rule.wkst = wkst as 'MO' | 'SU';
  }

  const count = values.get('COUNT');
  const until = values.get('UNTIL');
  if (count !== undefined && until !== undefined) fail('COUNT and UNTIL: give one or the other, not both');
  if (count !== undefined) rule.count = wholeIn(count, 1, MAX_OCCURRENCES) ?? fail(`COUNT: "${count}" is not a whole number from 1 to ${MAX_OCCURRENCES}`);
  if (until !== undefined) {
    const date = /^\d{8}$/.test(until) ? `${until.slice(0, 4)}-${until.slice(4, 6)}-${until.slice(6, 8)}` : '';
    if (!isCalendarDate(date)) fail(`UNTIL: "${until}" is not a date written YYYYMMDD`);
    rule.until = date;
  }
  return rule;
}

// --- Expansion --------------------------------------------------------------

/** The zone to expand in: the workspace's, or UTC for none or an unknown name (as zoned-time.ts reads them). */
const zones = new Map<string, string>();
function zoneOf(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    try {
      Temporal.Now.zonedDateTimeISO(timeZone);
      zone = timeZone;
    } catch {
      zone = 'UTC';
    }
    zones.set(timeZone, zone);
  }
  return zone;
}

const plain = (date: string) => Temporal.PlainDate.from(date);

function ruleSet(rule: Rule, startsOn: string, timeZone: string, time: string): RRuleTemporal {
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const dtstart = plain(startsOn).toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from({ hour, minute }) });
  // Windows are bounded by the caller (at most MAX_OCCURRENCES dates kept); the library's own cap of 10,000 steps would refuse a daily window of 30 years.
  return new RRuleTemporal({ rruleString: rule.text, dtstart, maxIterations: 200_000 });
}

export interface Expansion {
  /** The rule's dates, `YYYY-MM-DD`, ascending. */
  dates: string[];
  /** True when the window held more than `limit` dates (only `limit` are returned). */
  truncated: boolean;
}

/**
 * The rule's dates from `from` through `through` (both inclusive, `YYYY-MM-DD`), the
 * first occurrence being the first on or after `startsOn`, expanded on the wall
 * clock of `timeZone`; at most `limit` dates. A visit keeps its own wall-clock
 * time (events store dates and times as the workspace's wall clock), so the dates
 * are expanded at noon, which exists on every day of every zone: at a time that
 * a DST change skips, the library would drop the day (F210).
 */
export function expandRule(
  rule: Rule,
  startsOn: string,
  from: string,
  through: string,
  { timeZone, limit = MAX_OCCURRENCES }: { timeZone?: string | null; limit?: number } = {},
): Expansion {
  const start = laterDate(from, startsOn);
  const end = rule.until && rule.until < through ? rule.until : through;
  if (start > end || missesWeekdays(rule, startsOn, start, end)) return { dates: [], truncated: false };
  const zone = zoneOf(timeZone);
  return expandIn(ruleSet(rule, startsOn, zone, '12:00'), zone, start, end, limit);
}

/**
 * A window of under a week none of whose days is a weekday the rule can fall on
 * (its BYDAY, or a weekly rule's starting weekday) holds no occurrence: the daily
 * run's one-day windows are answered without the library six days in seven (F216).
 */
function missesWeekdays(rule: Rule, startsOn: string, from: string, through: string): boolean {
  const days = rule.byDay.length ? new Set(rule.byDay.map((r) => r.day)) : rule.freq === 'WEEKLY' ? new Set([weekdayOf(startsOn)]) : null;
  if (!days) return false;
  const first = plain(from);
  const span = first.until(plain(through)).days;
  if (span >= 6) return false;
  for (let i = 0; i <= span; i++) if (days.has(WEEKDAYS[(first.dayOfWeek - 1 + i) % 7] as Weekday)) return false;
  return true;
}

function expandIn(set: RRuleTemporal, zone: string, from: string, through: string, limit: number): Expansion {
  const after = plain(from).toZonedDateTime({ timeZone: zone });
  const before = plain(through).add({ days: 1 }).toZonedDateTime({ timeZone: zone }).subtract({ nanoseconds: 1 });
  const dates: string[] = [];
  let truncated = false;
  for (const z of set.between(after, before, true)) {
    if (dates.length === limit) {
      truncated = true;
      break;
    }
    dates.push(z.toPlainDate().toString());
  }
  return { dates, truncated };
}

/** The instants (ISO with offset and zone) of the rule's first `count` occurrences at `time` on the zone's wall clock. */
export function zonedOccurrences(rule: Rule, startsOn: string, count: number, { timeZone, time }: { timeZone: string; time: string }): string[] {
  const set = ruleSet(rule, startsOn, zoneOf(timeZone), time);
  return set.all((_, i) => i < count).map((z) => z.toString());
}

/**
 * The first `count` dates of the rule on or after `startsOn` (E20's preview): looked
 * for in a year, then ten, then a hundred, so a daily rule never walks a century and
 * a rule that never matches (February 30) ends.
 */
export function firstDates(rule: Rule, startsOn: string, count: number, timeZone?: string | null): string[] {
  let dates: string[] = [];
  for (const years of [1, 10, 100]) {
    const through = plain(startsOn).add({ years }).toString();
    dates = expandRule(rule, startsOn, startsOn, through, { timeZone, limit: count }).dates;
    if (dates.length >= count) break;
  }
  return dates;
}

/** The later of two `YYYY-MM-DD` dates. */
export const laterDate = (a: string, b: string): string => (a >= b ? a : b);

/** `date` plus `days` days. */
export const addDays = (date: string, days: number): string => plain(date).add({ days }).toString();

// --- Description ---------------------------------------------------------------

const DAY_NAMES: Record<Weekday, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const UNITS: Record<Frequency, [string, string]> = { DAILY: ['Daily', 'days'], WEEKLY: ['Weekly', 'weeks'], MONTHLY: ['Monthly', 'months'], YEARLY: ['Yearly', 'years'] };
const ORDINAL_WORDS: Record<number, string> = { 1: 'first', 2: 'second', 3: 'third', 4: 'fourth', 5: 'fifth', [-1]: 'last', [-2]: 'second to last', [-3]: 'third to last' };

/** "Monday", "Monday and Thursday", "Monday, Wednesday and Friday". */
const andList = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
const ordinalWord = (n: number) => ORDINAL_WORDS[n] ?? (n > 0 ? `${nth(n)}` : `${nth(-n)} to last`);
function nth(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}
const monthDay = (n: number) => (n === -1 ? 'last day' : nth(n));
const weekdayOf = (date: string): Weekday => WEEKDAYS[plain(date).dayOfWeek - 1] as Weekday;
/** "March 31, 2027" */
export const longDate = (date: string) => {
  const d = plain(date);
  return `${MONTH_NAMES[d.month - 1]} ${d.day}, ${d.year}`;
};

/**
 * The rule in English (E20): "Every 2 weeks on Tuesday", "Monthly on the last
 * Friday", "Weekly on Monday and Thursday, until March 31, 2027". `startsOn` names
 * the day a rule without BYDAY or BYMONTHDAY repeats on.
 */
export function describeRule(rule: Rule, startsOn: string): string {
  const [single, plural] = UNITS[rule.freq];
  let text = rule.interval === 1 ? single : `Every ${rule.interval} ${plural}`;
  const days = (refs: WeekdayRef[]) => andList(refs.map((r) => (r.n !== undefined ? `the ${ordinalWord(r.n)} ${DAY_NAMES[r.day]}` : DAY_NAMES[r.day])));
  const months = andList(rule.byMonth.map((m) => MONTH_NAMES[m - 1] as string));
  switch (rule.freq) {
    case 'DAILY':
      if (rule.byDay.length) text += ` on ${days(rule.byDay)}`;
      if (rule.byMonthDay.length) text += ` on the ${andList(rule.byMonthDay.map(monthDay))}`;
      if (months) text += ` in ${months}`;
      break;
    case 'WEEKLY':
      text += ` on ${days(rule.byDay.length ? rule.byDay : [{ day: weekdayOf(startsOn) }])}`;
      if (months) text += ` in ${months}`;
      break;
    case 'MONTHLY': {
      const start = plain(startsOn);
      if (rule.bySetPos.length) {
        const pool = rule.byDay.length ? andList(rule.byDay.map((r) => DAY_NAMES[r.day])) : `the ${andList(rule.byMonthDay.map(monthDay))}`;
        text += ` on the ${andList(rule.bySetPos.map(ordinalWord))} of ${pool}`;
      } else if (rule.byDay.length) text += ` on ${rule.byDay.every((r) => r.n !== undefined) ? days(rule.byDay) : `every ${days(rule.byDay)}`}`;
      if (rule.byMonthDay.length && !rule.bySetPos.length) text += ` on the ${andList(rule.byMonthDay.map(monthDay))}`;
      if (!rule.byDay.length && !rule.byMonthDay.length) text += ` on the ${nth(start.day)}`;
      if (months) text += ` in ${months}`;
      break;
    }
    case 'YEARLY': {
      const start = plain(startsOn);
      const inMonths = months || (MONTH_NAMES[start.month - 1] as string);
      if (rule.byDay.length) text += ` on ${days(rule.byDay)} in ${inMonths}`;
      else if (rule.byMonthDay.length) text += ` on the ${andList(rule.byMonthDay.map(monthDay))} of ${inMonths}`;
      else if (rule.byMonth.length) text += ` on the ${nth(start.day)} of ${inMonths}`;
      else text += ` on ${MONTH_NAMES[start.month - 1]} ${start.day}`;
      break;
    }
  }
  if (rule.count !== undefined) text += rule.count === 1 ? ', once' : `, ${rule.count} times`;
  if (rule.until) text += `, until ${longDate(rule.until)}`;
  return text;
}
