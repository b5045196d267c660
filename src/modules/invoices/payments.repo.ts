import type { Insertable, Kysely } from 'kysely';
import { shapedQuery } from '../../db/shaped.ts';
import { dialectOf, type JsonText } from '../../db/json-helpers.ts';
import { type UserRef, userRefJson } from '../../db/related.ts';
import type { DB, InvoicePaymentsTable } from '../../db/schema.ts';

// E3: the invoice_payments table; the rules (cents, balance, status) are in payments.service.ts.

export interface PaymentRow {
  id: number;
  invoice_id: number;
  amount_cents: number;
  method: string;
  paid_on: string;
  reference: string | null;
  note: string | null;
  created_at: string;
  user: JsonText<UserRef> | null;
}

const PAYMENT_COLUMNS = ['id', 'invoice_id', 'amount_cents', 'method', 'paid_on', 'reference', 'note', 'created_at'] as const;

// Compiled once per shape of the row, as lists are (F165).
const insertPaymentQuery = shapedQuery((db, values: Insertable<InvoicePaymentsTable>) =>
  db
    .insertInto('invoice_payments')
    .values(values)
    .returning(PAYMENT_COLUMNS)
    .returning((eb) => userRefJson(eb, dialectOf(db), 'invoice_payments.created_by').as('user')),
);

/** Inserts a payment and answers it with its author, from the same statement. */
export async function insertPayment(db: Kysely<DB>, values: Insertable<InvoicePaymentsTable>): Promise<PaymentRow> {
  const [row] = await insertPaymentQuery(db, values);
  return row!;
}

/** The invoice's payments, oldest `paid_on` first; undefined when the invoice is not in the workspace. */
export async function paymentsOf(db: Kysely<DB>, workspaceId: number, invoiceId: number): Promise<PaymentRow[] | undefined> {
  const d = dialectOf(db);
  const exists = await db.selectFrom('invoices').select('id').where('workspace_id', '=', workspaceId).where('id', '=', invoiceId).executeTakeFirst();
  if (!exists) return undefined;
  return db
    .selectFrom('invoice_payments')
    .select(PAYMENT_COLUMNS)
    .select((eb) => userRefJson(eb, d, 'invoice_payments.created_by').as('user'))
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('paid_on')
    .orderBy('id')
    .execute();
}

/** Deletes one payment of the invoice; answers its cents, or undefined when there is none. */
export function deletePayment(db: Kysely<DB>, workspaceId: number, invoiceId: number, paymentId: number) {
  return db
    .deleteFrom('invoice_payments')
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .where('id', '=', paymentId)
    .returning('amount_cents')
    .executeTakeFirst();
}
