import { type Static, Type } from 'typebox';
import { Id, Nullable, Timestamp, UserRef } from '../../kernel/schemas.ts';

/** E23: a deposit payment, E3's payment shape with the quote's id. */
export const DepositPayment = Type.Object({
  id: Id,
  quote_id: Id,
  amount: Type.Number(),
  method: Type.String(),
  paid_on: Type.String(),
  reference: Nullable(Type.String()),
  note: Nullable(Type.String()),
  created_at: Timestamp,
  created_by: Nullable(UserRef),
});
export type DepositPayment = Static<typeof DepositPayment>;
