import { type Static, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { pricingInput, pricingOutput } from '../../domain/line-items.ts';
import { ContactRef, DocumentRef, ExpandContact, ListContact, PropertyRef, UserRef } from '../../db/related.ts';
import { QUOTE_STATUSES } from '../../domain/statuses.ts';
import { listQuery } from '../../db/list-query.ts';
import { AnyJson, CsvOf, Id, Nullable, Str, Text, Timestamp, Uuid } from '../../kernel/schemas.ts';

const Status = Type.Enum([...QUOTE_STATUSES]);

const fields = {
  name: Type.Optional(Nullable(Str())),
  contact_id: Type.Optional(Nullable(Id)),
  property_id: Type.Optional(Nullable(Id)),
  request_id: Type.Optional(Nullable(Id)),
  salesperson_id: Type.Optional(Nullable(Uuid)),
  template_id: Type.Optional(Nullable(Id)),
  date: Type.Optional(Nullable(CalendarDate)),
  expire_on: Type.Optional(Nullable(CalendarDate)),
  message: Type.Optional(Nullable(Text())),
  payment_instructions: Type.Optional(Nullable(Text())),
  status: Type.Optional(Status),
  custom_fields: Type.Optional(AnyJson),
  ...pricingInput,
};
export const QuoteCreate = Type.Object(fields);
export const QuoteUpdate = Type.Object(fields);
export type QuoteCreate = Static<typeof QuoteCreate>;
export type QuoteUpdate = Static<typeof QuoteUpdate>;

/** E8: what the customer typed when approving the quote in the hub. */
export const QuoteApproval = Type.Object({
  signature_name: Type.String(),
  message: Nullable(Type.String()),
  approved_at: Timestamp,
});
export type QuoteApproval = Static<typeof QuoteApproval>;

export const Quote = Type.Object({
  id: Id,
  workspace_id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  property_id: Nullable(Id),
  request_id: Nullable(Id),
  salesperson_id: Nullable(Type.String()),
  template_id: Nullable(Id),
  date: Nullable(Type.String()),
  expire_on: Nullable(Type.String()),
  message: Nullable(Type.String()),
  payment_instructions: Nullable(Type.String()),
  ...pricingOutput,
  status: Type.String(),
  custom_fields: AnyJson,
  /** E8: the customer's approval in the hub; null until then. */
  approval: Nullable(QuoteApproval),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Quote = Static<typeof Quote>;

/** A status change made through the status endpoint or PUT, with its optional comment. */
export const StatusChange = Type.Object({
  status: Type.String(),
  comment: Nullable(Type.String()),
  user_id: Nullable(Type.String()),
  created_at: Timestamp,
});

/** "Get quote: expanded with related data": the related records, its job (D14) and its status changes. */
export const QuoteDetail = Type.Object({
  ...Quote.properties,
  contact: Nullable(ContactRef),
  property: Nullable(PropertyRef),
  request: Nullable(DocumentRef),
  salesperson: Nullable(UserRef),
  job: Nullable(DocumentRef),
  status_changes: Type.Array(StatusChange),
});
export type QuoteDetail = Static<typeof QuoteDetail>;

/** SPEC: the fields of a quote list item. */
export const QuoteListItem = Type.Object({
  id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  status: Type.String(),
  contact_id: Nullable(Id),
  /** A13: the client's name (the app's "Client" column). */
  contact: ListContact,
  total: Type.Number(),
  date: Nullable(Type.String()),
  expire_on: Nullable(Type.String()),
  created_at: Timestamp,
});
export type QuoteListItem = Static<typeof QuoteListItem>;

export const QuoteStatusBody = Type.Object({ status: Status, comment: Type.Optional(Nullable(Text(5000))) });
export type QuoteStatusBody = Static<typeof QuoteStatusBody>;

export const QUOTE_SORT = ['id', 'number', 'name', 'status', 'total', 'date', 'expire_on', 'created_at', 'updated_at'] as const;
export const QuoteQuery = listQuery(QUOTE_SORT, {
  contact_id: Type.Optional(Id),
  status: Type.Optional(CsvOf(QUOTE_STATUSES)),
  exclude_statuses: Type.Optional(CsvOf(QUOTE_STATUSES)),
  expand: ExpandContact,
});
export type QuoteQuery = Static<typeof QuoteQuery>;
