import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import { parseJson } from '../../db/json-helpers.ts';
import type { DB } from '../../db/schema.ts';
import { fromCents, statusAfterPayments, toCents, totalCents } from '../../domain/money.ts';
import { AppError, conflict, invalidField, notFound } from '../../kernel/errors.ts';
import { findInvoiceDetail, updateInvoiceRow, workspaceToday } from './invoices.repo.ts';
import type { InvoiceDetail } from './invoices.schemas.ts';
import type { OutboxEvent } from '../../outbox/emit.ts';
import { emitTransitions, invoiceUpdated } from './invoices.service.ts';
import type { Payment, PaymentCreate } from './payments.schemas.ts';
import { deletePayment, insertPayment, type PaymentRow, paymentsOf } from './payments.repo.ts';
import { addCarried, depositsToCarry } from '../quotes/deposits.repo.ts';

// EXTENSIONS E3/E4: payments in integer cents. Each write locks the invoice row
// (db/locks.ts) first, so concurrent payments and voids of one invoice queue and
// each sees the paid amount the previous one left (two payments racing for the
// last cent: the second exceeds the balance). The invoice's `amount_paid_cents`
// and status move in the same transaction; `invoice_paid` fires on entering `paid`.


// One literal, in the record's order (a rest and a spread of the row cost more: codec.ts).
const paymentOf = (p: PaymentRow): Payment => ({
  id: p.id,
  invoice_id: p.invoice_id,
  amount: fromCents(p.amount_cents),
  method: p.method,
  paid_on: p.paid_on,
  reference: p.reference,
  note: p.note,
  created_at: p.created_at,
  created_by: parseJson(p.user),
});

/** The stored cents back from `amount_paid` (cents / 100): exact, as cents are integers. */
const paidCentsOf = (invoice: InvoiceDetail): number => Math.round(invoice.amount_paid * 100);

async function lockedInvoice(trx: Kysely<DB>, workspaceId: number, invoiceId: number): Promise<InvoiceDetail> {
  const invoice = await findInvoiceDetail(trx, workspaceId, invoiceId, { lock: true });
  if (!invoice) throw notFound('Invoice');
  return invoice;
}

/** E4: stores the invoice's new paid amount and the status that follows from it. */
async function settle(trx: Kysely<DB>, workspaceId: number, before: InvoiceDetail, paidCents: number, also: OutboxEvent[] = []): Promise<void> {
  const status = statusAfterPayments(before.status, before.total, paidCents);
  const invoice = await updateInvoiceRow(trx, workspaceId, before.id, { amount_paid_cents: paidCents, status, updated_at: now() });
  // D16: invoice_paid once per entry; E14: the paid amount (and maybe status) changed.
  await emitTransitions(trx, workspaceId, before.status, invoice, { last: [invoiceUpdated(invoice), ...also] });
}

/**
 * E3 and E23: what a payment stores from its body, an invoice's or a quote's deposit:
 * the amount in whole cents (at most 2 decimals, else 400), the method `other` and
 * the workspace's today unless given.
 */
export async function paymentValues(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: PaymentCreate) {
  const cents = toCents(body.amount);
  if (cents === null) throw invalidField(['amount'], 'must have at most 2 decimals');
  return {
    workspace_id: workspaceId,
    amount_cents: cents,
    method: body.method ?? 'other',
    paid_on: body.paid_on ?? (await workspaceToday(trx, workspaceId)),
    reference: body.reference ?? null,
    note: body.note ?? null,
    created_by: userId,
    created_at: now(),
  };
}

export async function addPayment(trx: Kysely<DB>, workspaceId: number, userId: string | null, invoiceId: number, body: PaymentCreate): Promise<Payment> {
  const before = await lockedInvoice(trx, workspaceId, invoiceId);
  const values = await paymentValues(trx, workspaceId, userId, body);
  if (before.status === 'draft' || before.status === 'cancelled') throw conflict('Invoice is not open for payment');
  const paidCents = paidCentsOf(before);
  const cents = values.amount_cents;
  if (cents > totalCents(before.total) - paidCents) throw new AppError(400, 'Payment exceeds the invoice balance');
  const row = await insertPayment(trx, { ...values, invoice_id: invoiceId });
  const payment = paymentOf(row);
  const received: OutboxEvent = { event: 'payment_received', resource: 'invoices', data: payment, linkPath: `/api/v1/invoices/${invoiceId}/payments` }; // E14
  await settle(trx, workspaceId, before, paidCents + cents, [received]);
  return payment;
}

/** E3: the invoice's payments, oldest `paid_on` first. */
export async function listPayments(db: Kysely<DB>, workspaceId: number, invoiceId: number): Promise<Payment[]> {
  const rows = await paymentsOf(db, workspaceId, invoiceId);
  if (!rows) throw notFound('Invoice');
  return rows.map(paymentOf);
}

/** E3: voids (deletes) one payment of the invoice; another invoice's or workspace's is "Payment not found" (D5). */
export async function voidPayment(trx: Kysely<DB>, workspaceId: number, invoiceId: number, paymentId: number): Promise<void> {
  const before = await lockedInvoice(trx, workspaceId, invoiceId);
  const removed = await deletePayment(trx, workspaceId, invoiceId, paymentId);
  if (!removed) throw notFound('Payment');
  if (removed.deposit_id !== null) await addCarried(trx, workspaceId, removed.deposit_id, -removed.amount_cents); // E23: the deposit is free again
  await settle(trx, workspaceId, before, paidCentsOf(before) - removed.amount_cents);
}

/**
 * E23: an invoice made from a job (E6, E22) carries the deposit paid on the job's
 * quote as its own payments (method, date and reference kept, note "Deposit"), up
 * to its total; what does not fit stays for the job's next invoice. Each deposit
 * payment is locked and its carried cents kept, so a deposit is carried once.
 */
export async function carryDeposit(trx: Kysely<DB>, workspaceId: number, userId: string | null, invoice: InvoiceDetail): Promise<InvoiceDetail> {
  if (invoice.quote_id === null) return invoice;
  const deposits = await depositsToCarry(trx, workspaceId, invoice.quote_id);
  let room = totalCents(invoice.total) - paidCentsOf(invoice);
  let carried = 0;
  for (const d of deposits) {
    const cents = Math.min(d.amount_cents - d.carried_cents, room);
    if (cents <= 0) break;
    await insertPayment(trx, {
      workspace_id: workspaceId,
      invoice_id: invoice.id,
      amount_cents: cents,
      method: d.method,
      paid_on: d.paid_on,
      reference: d.reference,
      note: 'Deposit',
      created_by: d.created_by ?? userId,
      created_at: now(),
      deposit_id: d.id,
    });
    await addCarried(trx, workspaceId, d.id, cents);
    room -= cents;
    carried += cents;
  }
  if (!carried) return invoice;
  const paidCents = paidCentsOf(invoice) + carried;
  const updated = await updateInvoiceRow(trx, workspaceId, invoice.id, { amount_paid_cents: paidCents, status: statusAfterPayments(invoice.status, invoice.total, paidCents), updated_at: now() });
  await emitTransitions(trx, workspaceId, invoice.status, updated, { last: [invoiceUpdated(updated)] });
  return updated;
}
