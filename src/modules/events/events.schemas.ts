import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { CsvOf, CsvUuids, DateString, Id, Nullable, Str, Text, TimeString, Timestamp, UserRef, Uuid } from '../../kernel/schemas.ts';

export const EVENT_TYPES = ['appointment', 'task', 'event'] as const;
export const EVENT_STATUSES = ['pending', 'in_progress', 'scheduled', 'cancelled', 'missed', 'completed'] as const;

const EventType = Type.Enum([...EVENT_TYPES]);
const EventStatus = Type.Enum([...EVENT_STATUSES]);

const optionalFields = {
  name: Type.Optional(Nullable(Str())),
  description: Type.Optional(Nullable(Text())),
  job_id: Type.Optional(Nullable(Id)),
  request_id: Type.Optional(Nullable(Id)),
  start_time: Type.Optional(Nullable(TimeString)),
  end_time: Type.Optional(Nullable(TimeString)),
  all_day: Type.Optional(Type.Boolean()),
  multi_day: Type.Optional(Type.Boolean()),
  type: Type.Optional(EventType),
  status: Type.Optional(EventStatus),
  // Input only; the single GET answers `assignees`. The whole set: [] clears it.
  assignee_ids: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
};

/** SPEC Event: `start_date` and `end_date` required on create; no recurrence (SPEC Versioning 4). */
export const EventCreate = Type.Object({ start_date: DateString, end_date: DateString, ...optionalFields });
export const EventUpdate = Type.Object({ start_date: Type.Optional(DateString), end_date: Type.Optional(DateString), ...optionalFields });
export type EventCreate = Static<typeof EventCreate>;
export type EventUpdate = Static<typeof EventUpdate>;

export const EventStatusBody = Type.Object({ status: EventStatus });
export type EventStatusBody = Static<typeof EventStatusBody>;

export const Event = Type.Object({
  id: Id,
  workspace_id: Id,
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  job_id: Nullable(Id),
  request_id: Nullable(Id),
  start_date: Type.String(),
  end_date: Type.String(),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  all_day: Type.Boolean(),
  multi_day: Type.Boolean(),
  type: Type.String(),
  status: Type.String(),
  assignee_ids: Type.Array(Type.String()),
  /** E20: the rule's date a recurring job's visit stands for, kept when it moves; null on events no rule made. */
  occurrence_date: Nullable(Type.String()),
  /** E21: a visit changed by hand (date, times, assignees): no rule change moves or deletes it. */
  detached: Type.Boolean(),
  /** E22: the invoice that billed this visit; null until billed. */
  invoice_id: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Event = Static<typeof Event>;

export const EventJob = Type.Object({ id: Id, number: Type.Integer(), name: Nullable(Type.String()), status: Type.String() });

/** The single GET (and every write's answer): assignees and the job expanded (SPEC Notes per resource). */
export const EventDetail = Type.Object({
  ...Event.properties,
  /** E8: when the customer confirmed the appointment in the hub; null until then. */
  customer_confirmed_at: Nullable(Timestamp),
  assignees: Type.Array(UserRef),
  job: Nullable(EventJob),
});
export type EventDetail = Static<typeof EventDetail>;

export const EVENT_SORT = ['id', 'name', 'start_date', 'end_date', 'type', 'status', 'created_at', 'updated_at'] as const;
export const EventQuery = listQuery(EVENT_SORT, {
  start_date: Type.Optional(DateString), // events starting on or after
  end_date: Type.Optional(DateString), // events ending on or before
  // A130: together, the events overlapping a range (a calendar's visible days, "today").
  ends_on_or_after: Type.Optional(DateString),
  starts_on_or_before: Type.Optional(DateString),
  job_id: Type.Optional(Id),
  request_id: Type.Optional(Id),
  // A89: events whose job or request belongs to the contact (events have no contact of their own).
  contact_id: Type.Optional(Id),
  type: Type.Optional(EventType),
  assignee_ids: Type.Optional(CsvUuids), // events having any of them
  status: Type.Optional(CsvOf(EVENT_STATUSES)),
});
export type EventQuery = Static<typeof EventQuery>;
