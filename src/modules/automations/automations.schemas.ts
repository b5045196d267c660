import { type Static, Type } from 'typebox';
import { DAY_LISTS, VISIT_REMINDER_HOURS } from './automations.rules.ts';

const Days = (name: keyof typeof DAY_LISTS, description: string) =>
  Type.Array(Type.Integer({ minimum: DAY_LISTS[name].min, maximum: DAY_LISTS[name].max }), { maxItems: DAY_LISTS[name].count, description });

const Hours = Type.Integer({
  minimum: VISIT_REMINDER_HOURS.min,
  maximum: VISIT_REMINDER_HOURS.max,
  description: 'Hours before a visit starts that its client gets `appointment_reminder` (an all-day visit: before 09:00 that day); 0 is off',
});

const QUOTE_DAYS = 'Days after a quote was last sent that its client gets `quote_follow_up` while it is still `awaiting_response` (distinct)';
const INVOICE_DAYS = 'Days from the due date (negative: before it) that an unpaid invoice\'s client gets `invoice_reminder` (distinct)';

/** E24: GET /workspace/automations. */
export const Automations = Type.Object({
  quote_follow_up_days: Days('quote_follow_up_days', QUOTE_DAYS),
  invoice_reminder_days: Days('invoice_reminder_days', INVOICE_DAYS),
  visit_reminder_hours: Hours,
});

/** E24: PUT /workspace/automations; a field left out keeps its value. */
export const AutomationsBody = Type.Partial(Automations);
export type AutomationsBody = Static<typeof AutomationsBody>;
