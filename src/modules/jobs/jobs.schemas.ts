import { type Static, type TOptional, type TProperties, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { Money, pricingInput, pricingOutput } from '../../domain/line-items.ts';
import { ContactRef, DocumentRef, ExpandContact, ListContact, PropertyRef, UserRef } from '../../db/related.ts';
import { JOB_STATUSES } from '../../domain/statuses.ts';
import { listQuery } from '../../db/list-query.ts';
import { AnyJson, CsvOf, Id, Nullable, Str, Text, Timestamp, Uuid } from '../../kernel/schemas.ts';

export const JOB_TYPES = ['one-off', 'recurring'] as const;
export const MAX_EXPENSES = 200;
const Status = Type.Enum([...JOB_STATUSES]);

/** D10: the expense object; `id` is assigned (kept when sent back). */
export const ExpenseInput = Type.Object({
  id: Type.Optional(Uuid),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Text(5000))),
  date: Type.Optional(Nullable(CalendarDate)),
  amount: Money,
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
/** The answers: every field, the money optional (absent for members). */
export const JobDetailAnswer = moneyOptional(JobDetail.properties);
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
