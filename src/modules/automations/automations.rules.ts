import type { Detail } from '../../kernel/errors.ts';

// E24: the three automations, kept in the workspace's settings (F270) so that
// `fieldwork workspace set automations.<name>=...` and the API share one check.

export const DAY_LISTS = {
  // Days after a quote was last sent.
  quote_follow_up_days: { min: 1, max: 60, count: 3 },
  // Days relative to an invoice's due date (negative: before it).
  invoice_reminder_days: { min: -30, max: 90, count: 4 },
} as const;
export type DayList = keyof typeof DAY_LISTS;

export const VISIT_REMINDER_HOURS = { min: 0, max: 168 } as const;

export interface Automations {
  quote_follow_up_days: number[];
  invoice_reminder_days: number[];
  visit_reminder_hours: number;
}

export const settingKey = (name: keyof Automations) => `automations.${name}`;

/** What is wrong with a day list, each problem naming the item's index. */
export function dayListProblems(name: DayList, days: unknown[]): Detail[] {
  const { min, max, count } = DAY_LISTS[name];
  const problems: Detail[] = [];
  if (days.length > count) problems.push({ path: [name], message: `must have at most ${count} days` });
  days.forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isInteger(d)) problems.push({ path: [name, i], message: 'must be a whole number of days' });
    else if (d < min || d > max) problems.push({ path: [name, i], message: `must be from ${min} to ${max}` });
    else {
      const first = days.indexOf(d);
      if (first < i) problems.push({ path: [name, i], message: `repeats ${d} (item ${first})` });
    }
  });
  return problems;
}

export function visitHoursProblem(hours: unknown): string | null {
  const { min, max } = VISIT_REMINDER_HOURS;
  return typeof hours === 'number' && Number.isInteger(hours) && hours >= min && hours <= max ? null : `must be a whole number of hours from ${min} to ${max}`;
}

/** `workspace set automations.<name>=<value>`: days as "1,3,7" ("" for none), hours as a number. Throws the first problem. */
export function parseAutomationSetting(key: string, raw: string): string | number {
  const name = key.slice('automations.'.length);
  if (name === 'visit_reminder_hours') {
    const hours = raw.trim() === '' ? Number.NaN : Number(raw);
    const problem = visitHoursProblem(hours);
    if (problem) throw new Error(`${key} ${problem}`);
    return hours;
  }
  if (name === 'quote_follow_up_days' || name === 'invoice_reminder_days') {
    const days = raw.trim() === '' ? [] : raw.split(',').map((s) => (/^\s*-?\d+\s*$/.test(s) ? Number(s) : Number.NaN));
    const [problem] = dayListProblems(name, days);
    if (problem) throw new Error(`${key} ${problem.path.length > 1 ? `item ${problem.path[1]} ` : ''}${problem.message}`);
    return days.join(',');
  }
  throw new Error(`unknown setting "${key}"`);
}

const dayListOf = (v: unknown): number[] => (typeof v === 'string' && v.trim() ? v.split(',').map(Number) : []);

/** The automations of a workspace's settings (none when unset). */
export function automationsOf(settings: Record<string, unknown>): Automations {
  const hours = settings[settingKey('visit_reminder_hours')];
  return {
    quote_follow_up_days: dayListOf(settings[settingKey('quote_follow_up_days')]),
    invoice_reminder_days: dayListOf(settings[settingKey('invoice_reminder_days')]),
    visit_reminder_hours: typeof hours === 'number' ? hours : 0,
  };
}
