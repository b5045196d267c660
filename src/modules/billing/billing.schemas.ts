import { type Static, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { Id, Nullable } from '../../kernel/schemas.ts';
import { ContactName } from '../../db/related.ts';
import { InvoiceDetail, PAYMENT_TERMS } from '../invoices/invoices.schemas.ts';

// EXTENSIONS E22: the work done that is not billed yet, and the batch that bills it.

export const BillableWorkQuery = Type.Object({
  through: Type.Optional(CalendarDate),
  contact_id: Type.Optional(Id),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
});
export type BillableWorkQuery = Static<typeof BillableWorkQuery>;

export const BillableVisit = Type.Object({ id: Id, date: Type.String() });

/** One job's unbilled work: its completed visits (recurring), or the job itself (a completed one-off). */
export const BillableWork = Type.Object({
  job_id: Id,
  contact_id: Nullable(Id),
  /** The client's name (as lists give it with `expand=contact`). */
  contact: Nullable(ContactName),
  property_id: Nullable(Id),
  name: Nullable(Type.String()),
  visits: Type.Array(BillableVisit),
  /** The total of the invoice the batch would make (D7). */
  amount: Type.Number(),
});
export type BillableWork = Static<typeof BillableWork>;

export const BatchBody = Type.Object({
  through: Type.Optional(CalendarDate),
  job_ids: Type.Optional(Type.Array(Id, { maxItems: 10_000 })),
  contact_ids: Type.Optional(Type.Array(Id, { maxItems: 10_000 })),
  payment_terms: Type.Optional(Type.Enum([...PAYMENT_TERMS])),
  send: Type.Optional(Type.Boolean()),
});
export type BatchBody = Static<typeof BatchBody>;

export const BatchMeta = Type.Object({ created: Type.Integer(), sent: Type.Integer(), not_sent: Type.Array(Id) });
export const BatchAnswer = Type.Object({ success: Type.Literal(true), data: Type.Array(InvoiceDetail), meta: BatchMeta });
export type BatchAnswer = Static<typeof BatchAnswer>;
