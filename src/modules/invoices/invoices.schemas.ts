import { type Static, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { pricingInput, pricingOutput } from '../../domain/line-items.ts';
import { ContactName, DocumentRef, ExpandContact, ListContact } from '../../db/related.ts';
import { INVOICE_STATUSES } from '../../domain/statuses.ts';
import { listQuery } from '../../db/list-query.ts';
import { AnyJson, CsvOf, Id, Nullable, Str, Text, Timestamp, Uuid } from '../../kernel/schemas.ts';

export const PAYMENT_TERMS = ['due_on_receipt', 'net_7', 'net_14', 'net_30', 'net_60', 'net_90'] as const;
export const INVOICE_TYPES = ['one-off', 'recurring'] as const;
export const MAX_EVENT_IDS = 100;
const Status = Type.Enum([...INVOICE_STATUSES]);

const fields = {
  name: Type.Optional(Nullable(Str())),
  contact_id: Type.Optional(Nullable(Id)),
  property_id: Type.Optional(Nullable(Id)),
  job_id: Type.Optional(Nullable(Id)),
  quote_id: Type.Optional(Nullable(Id)),
  /** Ours: SPEC names no parent field, but `exclude_children` needs one. */
  parent_id: Type.Optional(Nullable(Id)),
  salesperson_id: Type.Optional(Nullable(Uuid)),
  date: Type.Optional(Nullable(CalendarDate)),
  due_date: Type.Optional(Nullable(CalendarDate)),
  send_on: Type.Optional(Nullable(CalendarDate)),
  message: Type.Optional(Nullable(Text())),
  payment_instructions: Type.Optional(Nullable(Text())),
  payment_terms: Type.Optional(Type.Enum([...PAYMENT_TERMS])),
  status: Type.Optional(Status),
  type: Type.Optional(Type.Enum([...INVOICE_TYPES])),
  custom_fields: Type.Optional(AnyJson),
  event_ids: Type.Optional(Type.Array(Id, { maxItems: MAX_EVENT_IDS })),
  ...pricingInput,
};
export const InvoiceCreate = Type.Object(fields);
export const InvoiceUpdate = Type.Object(fields);
export type InvoiceCreate = Static<typeof InvoiceCreate>;
export type InvoiceUpdate = Static<typeof InvoiceUpdate>;

export const Invoice = Type.Object({
  id: Id,
  workspace_id: Id,
  /** E1: D13 number, kind `invoices`. */
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  property_id: Nullable(Id),
  job_id: Nullable(Id),
  quote_id: Nullable(Id),
  parent_id: Nullable(Id),
  salesperson_id: Nullable(Type.String()),
  date: Nullable(Type.String()),
  due_date: Nullable(Type.String()),
  send_on: Nullable(Type.String()),
  message: Nullable(Type.String()),
  payment_instructions: Nullable(Type.String()),
  payment_terms: Type.String(),
  ...pricingOutput,
  /** E4: the live payments' sum, and `total - amount_paid`. */
  amount_paid: Type.Number(),
  balance: Type.Number(),
  status: Type.String(),
  type: Type.String(),
  custom_fields: AnyJson,
  event_ids: Type.Array(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Invoice = Static<typeof Invoice>;

/** SPEC "Get invoice": expanded with contact, job and line items. */
export const InvoiceDetail = Type.Object({
  ...Invoice.properties,
  contact: Nullable(ContactName),
  job: Nullable(DocumentRef),
});
export type InvoiceDetail = Static<typeof InvoiceDetail>;

/** SPEC: the fields of an invoice list item. */
export const InvoiceListItem = Type.Object({
  id: Id,
  number: Type.Integer(),
  name: Nullable(Type.String()),
  contact_id: Nullable(Id),
  /** A13: the client's name (the app's "Client" column). */
  contact: ListContact,
  status: Type.String(),
  total: Type.Number(),
  amount_paid: Type.Number(),
  balance: Type.Number(),
  date: Nullable(Type.String()),
  due_date: Nullable(Type.String()),
});
export type InvoiceListItem = Static<typeof InvoiceListItem>;

export const InvoiceStatusBody = Type.Object({ status: Status });
export type InvoiceStatusBody = Static<typeof InvoiceStatusBody>;

export const INVOICE_SORT = ['id', 'number', 'name', 'status', 'total', 'date', 'due_date', 'created_at', 'updated_at'] as const;
export const InvoiceQuery = listQuery(INVOICE_SORT, {
  contact_id: Type.Optional(Id),
  job_id: Type.Optional(Id),
  exclude_children: Type.Optional(Type.Boolean()),
  status: Type.Optional(CsvOf(INVOICE_STATUSES)),
  exclude_statuses: Type.Optional(CsvOf(INVOICE_STATUSES)),
  expand: ExpandContact,
});
export type InvoiceQuery = Static<typeof InvoiceQuery>;
