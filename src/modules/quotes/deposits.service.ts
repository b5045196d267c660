import type { Kysely } from 'kysely';
import { parseJson } from '../../db/json-helpers.ts';
import type { DB } from '../../db/schema.ts';
import { depositCents, type Unit } from '../../domain/line-items.ts';
import { fromCents } from '../../domain/money.ts';
import { AppError, conflict, notFound } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import type { PaymentCreate } from '../invoices/payments.schemas.ts';
import { paymentValues } from '../invoices/payments.service.ts';
import { type DepositRow, depositsOf, insertDeposit, lockQuoteForDeposit, setDepositPaid } from './deposits.repo.ts';
import type { DepositPayment } from './deposits.schemas.ts';
import { getQuoteDetail, setQuoteStatus } from './quotes.service.ts';

// EXTENSIONS E23: a quote's deposit payments, with E3's body, rules and shapes, in
// integer cents. The quote row is locked first, so concurrent payments queue and
// each sees what the previous one paid. When the payments reach `deposit_amount`, an
// `awaiting_deposit` quote is accepted (D14: its job is made, `quote_accepted`).

const depositOfRow = (p: DepositRow): DepositPayment => ({
  id: p.id,
  quote_id: p.quote_id,
  amount: fromCents(p.amount_cents),
  method: p.method,
  paid_on: p.paid_on,
  reference: p.reference,
  note: p.note,
  created_at: p.created_at,
  created_by: parseJson(p.user),
});

/** The statuses a deposit may be paid in. */
const TAKES_DEPOSIT = ['awaiting_deposit', 'accepted'];

export async function addDeposit(trx: Kysely<DB>, workspaceId: number, userId: string | null, quoteId: number, body: PaymentCreate): Promise<DepositPayment> {
  const quote = await lockQuoteForDeposit(trx, workspaceId, quoteId);
  if (!quote) throw notFound('Quote');
  const values = await paymentValues(trx, workspaceId, userId, body);
  if (!TAKES_DEPOSIT.includes(quote.status)) throw conflict('Quote is not awaiting a deposit');
  const asked = depositCents(quote.total, quote.deposit, quote.deposit_unit as Unit);
  const paid = Number(quote.deposit_paid_cents);
  const cents = values.amount_cents;
  if (cents > asked - paid) throw new AppError(400, 'Payment exceeds the deposit due');
  const row = await insertDeposit(trx, { ...values, quote_id: quoteId });
  await setDepositPaid(trx, workspaceId, quoteId, paid + cents);
  if (quote.status === 'awaiting_deposit' && paid + cents >= asked) {
    await setQuoteStatus(trx, workspaceId, userId, quoteId, 'accepted'); // D14, with its own quote_updated
  } else {
    await emit(trx, workspaceId, 'quote_updated', 'quotes', await getQuoteDetail(trx, workspaceId, quoteId)); // E14: the paid amount changed
  }
  return depositOfRow(row);
}

/** E23: the quote's deposit payments, oldest `paid_on` first. */
export async function listDeposits(db: Kysely<DB>, workspaceId: number, quoteId: number): Promise<DepositPayment[]> {
  const rows = await depositsOf(db, workspaceId, quoteId);
  if (!rows) throw notFound('Quote');
  return rows.map(depositOfRow);
}
