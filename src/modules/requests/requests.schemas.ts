import { type Static, Type } from 'typebox';
import { REQUEST_STATUSES } from '../../domain/statuses.ts';
import { listQuery } from '../../db/list-query.ts';
import { ExpandContact, ListContact } from '../../db/related.ts';
import { AnyJson, CsvOf, DateString, Id, Nullable, Str, Text, Timestamp, Uuid } from '../../kernel/schemas.ts';

/** SPEC: ISO 8601, a date or a date-time. */
const RequestedOn = Type.Union([DateString, Type.String({ format: 'date-time', maxLength: 40 })]);
const Status = Type.Enum([...REQUEST_STATUSES]);

const fields = {
  name: Type.Optional(Nullable(Str())),
  contact_id: Type.Optional(Nullable(Id)),
  property_id: Type.Optional(Nullable(Id)),
  assignee_id: Type.Optional(Nullable(Uuid)),
  details: Type.Optional(Nullable(Text())),
  assessment: Type.Optional(Nullable(Text())),
  requested_on: Type.Optional(Nullable(RequestedOn)),
  status: Type.Optional(Status),
  data: Type.Optional(AnyJson),
  custom_fields: Type.Optional(AnyJson),
};
export const RequestCreate = Type.Object(fields);
export const RequestUpdate = Type.Object(fields);
export type RequestCreate = Static<typeof RequestCreate>;
export type RequestUpdate = Static<typeof RequestUpdate>;

export const Request = Type.Object({
  id: Id,
  workspace_id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  property_id: Nullable(Id),
  assignee_id: Nullable(Type.String()),
  details: Nullable(Type.String()),
  assessment: Nullable(Type.String()),
  requested_on: Nullable(Type.String()),
  status: Type.String(),
  data: AnyJson,
  custom_fields: AnyJson,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Request = Static<typeof Request>;

/** A list's request: the record and (A13) its client's name, for the app's "Client" column. */
export const RequestListItem = Type.Object({ ...Request.properties, contact: ListContact });
export type RequestListItem = Static<typeof RequestListItem>;

export const RequestStatusBody = Type.Object({ status: Status });
export type RequestStatusBody = Static<typeof RequestStatusBody>;

/** D33: the `data` of `new_request`. */
export interface NewRequestPayload {
  id: number;
  name: string | null;
  email: string | null;
  phone: string | null;
  service_type: string | null;
  message: string | null;
  status: string;
  created_at: string;
}

export const REQUEST_SORT = ['id', 'number', 'name', 'status', 'requested_on', 'created_at', 'updated_at'] as const;
export const RequestQuery = listQuery(REQUEST_SORT, {
  contact_id: Type.Optional(Id),
  status: Type.Optional(CsvOf(REQUEST_STATUSES)),
  expand: ExpandContact,
});
export type RequestQuery = Static<typeof RequestQuery>;
