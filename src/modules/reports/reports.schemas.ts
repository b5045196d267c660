import { type Static, type TObject, type TProperties, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { Id, Nullable, Pagination, Uuid } from '../../kernel/schemas.ts';

// E27: the five reports' queries and rows. A row's field order is its CSV header's.

const Format = Type.Optional(Type.Enum(['json', 'csv'], { description: '`csv`: the rows as CSV (as `Accept: text/csv` asks)' }));
const range = {
  from: Type.Optional({ ...CalendarDate, description: 'First day (inclusive); default the first day of the current month in the workspace timezone' }),
  to: Type.Optional({ ...CalendarDate, description: 'Last day (inclusive); default the last day of the current month in the workspace timezone' }),
  format: Format,
};
export const RangeQuery = Type.Object(range);
export type RangeQuery = Static<typeof RangeQuery>;
export const RevenueQuery = Type.Object({ ...range, group: Type.Optional(Type.Enum(['month', 'client', 'service'], { default: undefined })) });
export type RevenueQuery = Static<typeof RevenueQuery>;
export const ReceivablesQuery = Type.Object({
  as_of: Type.Optional({ ...CalendarDate, description: 'The day balances are aged at; default today in the workspace timezone' }),
  format: Format,
});
export type ReceivablesQuery = Static<typeof ReceivablesQuery>;

const Money = Type.Number({ description: 'Money, 2 decimals' });
const Hours = Type.Number({ description: 'Hours, 2 decimals' });
const Percent = Nullable(Type.Number({ description: 'Percent, 1 decimal; null when there is nothing to divide by' }));

export const RevenueRow = Type.Object({
  key: Nullable(Type.String({ description: '`YYYY-MM`, the contact id, or the line item name' })),
  label: Type.String(),
  invoiced: Money,
  collected: Money,
});
export const ReceivablesRow = Type.Object({
  contact_id: Nullable(Id),
  name: Type.String(),
  current: Money,
  days_1_30: Money,
  days_31_60: Money,
  days_61_90: Money,
  days_over_90: Money,
  total: Money,
});
export const JobCostingRow = Type.Object({
  job_id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  revenue: Money,
  labour_hours: Hours,
  labour_cost: Money,
  line_costs: Money,
  expenses: Money,
  profit: Money,
  margin: Percent,
});
export const TimeRow = Type.Object({
  user_id: Uuid,
  name: Type.String(),
  week_start: Type.String(),
  draft: Hours,
  pending: Hours,
  approved: Hours,
  rejected: Hours,
  total: Hours,
});
export const QuotesRow = Type.Object({
  key: Type.String({ description: '`YYYY-MM`' }),
  sent: Type.Integer(),
  accepted: Type.Integer(),
  declined: Type.Integer(),
  sent_amount: Money,
  accepted_amount: Money,
  conversion: Percent,
});
export type RevenueRow = Static<typeof RevenueRow>;
export type ReceivablesRow = Static<typeof ReceivablesRow>;
export type JobCostingRow = Static<typeof JobCostingRow>;
export type TimeRow = Static<typeof TimeRow>;
export type QuotesRow = Static<typeof QuotesRow>;

/** Every row at once: one page as large as the report (E27). */
export const ReportPage = <T extends TObject<TProperties>>(row: T) => Type.Object({ success: Type.Literal(true), data: Type.Array(row), pagination: Pagination });
