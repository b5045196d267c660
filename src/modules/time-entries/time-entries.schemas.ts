import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { DateString, Id, Nullable, Text, TimeString, Timestamp, Uuid } from '../../kernel/schemas.ts';

// Hours: a year of round-the-clock work fits; more is a typo.
const Hours = Type.Number({ minimum: 0, maximum: 10_000 });

const optionalFields = {
  start_time: Type.Optional(Nullable(TimeString)),
  end_time: Type.Optional(Nullable(TimeString)),
  total_time: Type.Optional(Hours), // D9: computed from the times when not given
  description: Type.Optional(Nullable(Text())),
  user_id: Type.Optional(Uuid), // defaults to the key's user (SPEC Authentication 4)
  job_id: Type.Optional(Nullable(Id)),
  request_id: Type.Optional(Nullable(Id)),
  quote_id: Type.Optional(Nullable(Id)),
};

export const TimeEntryCreate = Type.Object({ start_date: DateString, end_date: DateString, ...optionalFields });
export const TimeEntryUpdate = Type.Object({ start_date: Type.Optional(DateString), end_date: Type.Optional(DateString), ...optionalFields });
export type TimeEntryCreate = Static<typeof TimeEntryCreate>;
export type TimeEntryUpdate = Static<typeof TimeEntryUpdate>;

export const TimeEntry = Type.Object({
  id: Id,
  workspace_id: Id,
  timesheet_id: Id,
  user_id: Type.String(),
  start_date: Type.String(),
  end_date: Type.String(),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  total_time: Type.Number(),
  description: Nullable(Type.String()),
  job_id: Nullable(Id),
  request_id: Nullable(Id),
  quote_id: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type TimeEntry = Static<typeof TimeEntry>;

export const TIME_ENTRY_SORT = ['id', 'start_date', 'end_date', 'total_time', 'created_at', 'updated_at'] as const;
export const TimeEntryQuery = listQuery(TIME_ENTRY_SORT, {
  start_date: Type.Optional(DateString), // starting on or after
  end_date: Type.Optional(DateString), // ending on or before
  user_id: Type.Optional(Uuid),
  job_id: Type.Optional(Id),
  request_id: Type.Optional(Id),
  quote_id: Type.Optional(Id),
});
export type TimeEntryQuery = Static<typeof TimeEntryQuery>;
