import { type Static, type TOptional, type TProperties, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { MAX_PRICE, pricingInput, pricingOutput } from '../../domain/line-items.ts';
import { ContactRef, DocumentRef, ExpandContact, ListContact, PropertyRef, UserRef } from '../../db/related.ts';
import { JOB_STATUSES } from '../../domain/statuses.ts';
import { listQuery } from '../../db/list-query.ts';
import { AnyJson, CsvOf, Id, Nullable, Str, Text, TimeString, Timestamp, Uuid } from '../../kernel/schemas.ts';

export const JOB_TYPES = ['one-off', 'recurring'] as const;
/** E22: how a job's work is billed; the last two need a recurring job. */
export const INVOICING = ['manual', 'per_visit', 'monthly'] as const;
/** E21: at most this many skipped dates are kept per series. */
export const MAX_SKIPPED_DATES = 1000;
const Rrule = Type.String({ minLength: 1, maxLength: 500, description: 'An RFC 5545 RRULE value without DTSTART, e.g. FREQ=WEEKLY;INTERVAL=2;BYDAY=TU' });

/** E20: a recurring job's rule and what its visits look like; E21: `effective_from` and `skipped_dates` on update. */
export const ScheduleInput = Type.Object({
  rrule: Rrule,
  starts_on: CalendarDate,
  start_time: Type.Optional(Nullable(TimeString)),
  end_time: Type.Optional(Nullable(TimeString)),
  all_day: Type.Optional(Type.Boolean()),
  assignee_ids: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
  /** E21: the date the new rule replaces the old one from (default: today in the workspace's timezone). */
  effective_from: Type.Optional(CalendarDate),
  /** E21: the occurrences not to make (`[]` clears them); kept as they are when absent. */
  skipped_dates: Type.Optional(Type.Array(CalendarDate, { maxItems: MAX_SKIPPED_DATES })),
});
export type ScheduleInput = Static<typeof ScheduleInput>;

/** What `jobs.schedule` holds. */
export interface StoredSchedule {
  rrule: string;
  starts_on: string;
  start_time: string | null;
  end_time: string | null;
  all_day: boolean;
  assignee_ids: string[];
  skipped_dates: string[];
}

export const Schedule = Type.Object({
  rrule: Type.String(),
  starts_on: Type.String(),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  all_day: Type.Boolean(),
  assignee_ids: Type.Array(Type.String()),
  skipped_dates: Type.Array(Type.String()),
  /** The rule in English, e.g. "Every 2 weeks on Tuesday". */
  description: Type.String(),
  /** The first visit on or after today that is not completed, cancelled or missed. */
  next_visit_on: Nullable(Type.String()),
  /** The last date visits have been made through. */
  generated_through: Type.String(),
});
export type Schedule = Static<typeof Schedule>;

/** E20: `POST /jobs/schedule-preview`. */
export const SchedulePreviewBody = Type.Object({
  rrule: Rrule,
  starts_on: CalendarDate,
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
});
export type SchedulePreviewBody = Static<typeof SchedulePreviewBody>;
export const SchedulePreview = Type.Object({ dates: Type.Array(Type.String()), description: Type.String() });
export type SchedulePreview = Static<typeof SchedulePreview>;

/** E21: what a job's create or update did to its visits. */
export const JobWriteMeta = Type.Object({ visits_created: Type.Integer(), visits_deleted: Type.Integer() });
export type JobWriteMeta = Static<typeof JobWriteMeta>;
export const MAX_EXPENSES = 200;
const Status = Type.Enum([...JOB_STATUSES]);

/** D10: the expense object; `id` is assigned (kept when sent back). */
export const ExpenseInput = Type.Object({
  id: Type.Optional(Uuid),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Text(5000))),
  /** E26: required, as `name` and an amount above 0: an expense counts as a cost on its date. */
  date: CalendarDate,
  amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_PRICE }),
  category: Type.Optional(Nullable(Str(100))),
  receipt_upload_id: Type.Optional(Nullable(Id)),
});
export type ExpenseInput = Static<typeof ExpenseInput>;
export const Expense = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  date: Nullable(Type.String()),
  amount: Type.Number(),
  category: Nullable(Type.String()),
  receipt_upload_id: Nullable(Id),
});
export type Expense = Static<typeof Expense>;

const fields = {
  name: Type.Optional(Nullable(Str())),
  contact_id: Type.Optional(Nullable(Id)),
  property_id: Type.Optional(Nullable(Id)),
  request_id: Type.Optional(Nullable(Id)),
  quote_id: Type.Optional(Nullable(Id)),
  salesperson_id: Type.Optional(Nullable(Uuid)),
  type: Type.Optional(Type.Enum([...JOB_TYPES])),
  expected_end_date: Type.Optional(Nullable(CalendarDate)),
  expenses: Type.Optional(Type.Array(ExpenseInput, { maxItems: MAX_EXPENSES })),
  status: Type.Optional(Status),
  custom_fields: Type.Optional(AnyJson),
  schedule: Type.Optional(Nullable(ScheduleInput)),
  invoicing: Type.Optional(Type.Enum([...INVOICING])),
  ...pricingInput,
};
export const JobCreate = Type.Object(fields);
export const JobUpdate = Type.Object(fields);
export type JobCreate = Static<typeof JobCreate>;
export type JobUpdate = Static<typeof JobUpdate>;

export const Job = Type.Object({
  id: Id,
  workspace_id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  property_id: Nullable(Id),
  request_id: Nullable(Id),
  quote_id: Nullable(Id),
  salesperson_id: Nullable(Type.String()),
  type: Type.String(),
  expected_end_date: Nullable(Type.String()),
  expenses: Type.Array(Expense),
  ...pricingOutput,
  status: Type.String(),
  custom_fields: AnyJson,
  schedule: Nullable(Schedule),
  invoicing: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Job = Static<typeof Job>;

/** "Get job: expanded with related data". */
export const JobDetail = Type.Object({
  ...Job.properties,
  contact: Nullable(ContactRef),
  property: Nullable(PropertyRef),
  request: Nullable(DocumentRef),
  quote: Nullable(DocumentRef),
  salesperson: Nullable(UserRef),
});
export type JobDetail = Static<typeof JobDetail>;

/** SPEC: the fields of a job list item. */
export const JobListItem = Type.Object({
  id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  status: Type.String(),
  type: Type.String(),
  contact_id: Nullable(Id),
  /** A13: the client's name (the app's "Client" column). */
  contact: ListContact,
  total: Type.Number(),
  schedule: Nullable(Schedule),
  created_at: Timestamp,
});
export type JobListItem = Static<typeof JobListItem>;

/** A14: a job's money, left out of what a member's session reads. */
export const JOB_MONEY_FIELDS = ['expenses', 'line_items', 'discount', 'discount_unit', 'deposit', 'deposit_unit', 'tax_rate', 'tax_rate_id', 'total'] as const;
export type JobMoneyField = (typeof JOB_MONEY_FIELDS)[number];
/** `properties` with the money optional, in their order (the answer's key order). */
function moneyOptional<T extends TProperties>(properties: T) {
  const money: readonly string[] = JOB_MONEY_FIELDS;
  const entries = Object.entries(properties).map(([k, v]) => [k, money.includes(k) ? Type.Optional(v) : v]);
  return Type.Object(Object.fromEntries(entries) as { [P in keyof T]: P extends JobMoneyField ? TOptional<T[P]> : T[P] });
}
/** A14: a line item as a member's session reads it: what the work is and how much of it, no price, cost or total. */
export const WorkItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  quantity: Type.Number(),
});
export type WorkItem = Static<typeof WorkItem>;
/** The answers: every field, the money optional (absent for members); a member's GET /jobs/:id adds `work_items`. */
export const JobDetailAnswer = Type.Object({
  ...moneyOptional(JobDetail.properties).properties,
  work_items: Type.Optional(
    Type.Array(WorkItem, {
      description:
        "Only in a member's session's answer to GET /jobs/:id, which has no `line_items` (A14): the job's line items in their order, each with its id, name, description and quantity, no price, cost or total",
    }),
  ),
});
export const JobListItemAnswer = moneyOptional(JobListItem.properties);
export type JobDetailAnswer = Static<typeof JobDetailAnswer>;
export type JobListItemAnswer = Static<typeof JobListItemAnswer>;

export const JobStatusBody = Type.Object({ status: Status });
export type JobStatusBody = Static<typeof JobStatusBody>;

export const JOB_SORT = ['id', 'number', 'name', 'status', 'type', 'total', 'created_at', 'updated_at'] as const;
export const JobQuery = listQuery(JOB_SORT, {
  contact_id: Type.Optional(Id),
  quote_id: Type.Optional(Id),
  status: Type.Optional(CsvOf(JOB_STATUSES)),
  to_invoice: Type.Optional(
    Type.Boolean({ description: 'true: only completed jobs that no invoice names (Home\'s "Jobs to invoice"); false: every other job' }),
  ),
  expand: ExpandContact,
});
export type JobQuery = Static<typeof JobQuery>;
