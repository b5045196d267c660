import { type Static, Type } from 'typebox';
import { CalendarDate } from '../../domain/dates.ts';
import { MAX_TOTAL } from '../../domain/line-items.ts';
import { Id, Nullable, Str, Text, Timestamp, UserRef } from '../../kernel/schemas.ts';

// EXTENSIONS E3: payments against an invoice.
export const PAYMENT_METHODS = ['cash', 'check', 'card', 'bank_transfer', 'other'] as const;

export const PaymentCreate = Type.Object({
  /** > 0, at most 2 decimals (checked as cents by the service), at most the balance. */
  amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TOTAL }),
  method: Type.Optional(Type.Enum([...PAYMENT_METHODS])),
  paid_on: Type.Optional(CalendarDate),
  reference: Type.Optional(Nullable(Str(255))),
  note: Type.Optional(Nullable(Text(2000))),
});
export type PaymentCreate = Static<typeof PaymentCreate>;

export const Payment = Type.Object({
  id: Id,
  invoice_id: Id,
  amount: Type.Number(),
  method: Type.String(),
  paid_on: Type.String(),
  reference: Nullable(Type.String()),
  note: Nullable(Type.String()),
  created_at: Timestamp,
  created_by: Nullable(UserRef),
});
export type Payment = Static<typeof Payment>;

export const PaymentParams = Type.Object({ id: Id, paymentId: Id });
