import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { DateString, Id, Nullable, Timestamp, Uuid } from '../../kernel/schemas.ts';
import { TimeEntry } from '../time-entries/time-entries.schemas.ts';

export const TIMESHEET_STATUSES = ['draft', 'pending', 'approved', 'rejected'] as const;
const TimesheetStatus = Type.Enum([...TIMESHEET_STATUSES]);

export const Timesheet = Type.Object({
  id: Id,
  workspace_id: Id,
  user_id: Type.String(),
  status: Type.String(),
  start_date: Type.String(),
  end_date: Type.String(),
  total_time: Type.Number(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Timesheet = Static<typeof Timesheet>;

const TimesheetUser = Type.Object({ id: Uuid, first_name: Nullable(Type.String()), last_name: Nullable(Type.String()), email: Type.String() });

/** D9: the single GET carries the entries and `user: {id, first_name, last_name, email}`. */
export const TimesheetDetail = Type.Object({ ...Timesheet.properties, time_entries: Type.Array(TimeEntry), user: Nullable(TimesheetUser) });
export type TimesheetDetail = Static<typeof TimesheetDetail>;

export const TimesheetStatusBody = Type.Object({ status: TimesheetStatus });
export type TimesheetStatusBody = Static<typeof TimesheetStatusBody>;

export const TIMESHEET_SORT = ['id', 'start_date', 'end_date', 'total_time', 'status', 'created_at', 'updated_at'] as const;
export const TimesheetQuery = listQuery(TIMESHEET_SORT, {
  start_date: Type.Optional(DateString), // weeks starting on or after
  end_date: Type.Optional(DateString), // weeks ending on or before
  user_id: Type.Optional(Uuid),
  status: Type.Optional(TimesheetStatus), // one status (SPEC List filters)
});
export type TimesheetQuery = Static<typeof TimesheetQuery>;
