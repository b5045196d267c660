import type { Insertable, Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import { dialectOf, type JsonText } from '../../db/json-helpers.ts';
import { locked } from '../../db/locks.ts';
import { type UserRef, userRefJson } from '../../db/related.ts';
import type { DB, QuotePaymentsTable } from '../../db/schema.ts';

// E23: the quote_payments table (a quote's deposit payments, integer cents); the
// rules are in deposits.service.ts.

export interface DepositRow {
  id: number;
  quote_id: number;
  amount_cents: number;
  method: string;
  paid_on: string;
  reference: string | null;
  note: string | null;
  created_at: string;
  user: JsonText<UserRef> | null;
}

const COLUMNS = ['id', 'quote_id', 'amount_cents', 'method', 'paid_on', 'reference', 'note', 'created_at'] as const;

export async function insertDeposit(db: Kysely<DB>, values: Insertable<QuotePaymentsTable>): Promise<DepositRow> {
  const [row] = await db
    .insertInto('quote_payments')
    .values(values)
    .returning(COLUMNS)
    .returning((eb) => userRefJson(eb, dialectOf(db), 'quote_payments.created_by').as('user'))
    .execute();
  return row!;
}

/** The quote's deposit payments, oldest `paid_on` first; undefined when the quote is not in the workspace. */
export async function depositsOf(db: Kysely<DB>, workspaceId: number, quoteId: number): Promise<DepositRow[] | undefined> {
  const exists = await db.selectFrom('quotes').select('id').where('workspace_id', '=', workspaceId).where('id', '=', quoteId).executeTakeFirst();
  if (!exists) return undefined;
  return db
    .selectFrom('quote_payments')
    .select(COLUMNS)
    .select((eb) => userRefJson(eb, dialectOf(db), 'quote_payments.created_by').as('user'))
    .where('workspace_id', '=', workspaceId)
    .where('quote_id', '=', quoteId)
    .orderBy('paid_on')
    .orderBy('id')
    .execute();
}

/** The deposit payments of a quote not yet carried in full onto an invoice, locked until commit. */
export function depositsToCarry(trx: Kysely<DB>, workspaceId: number, quoteId: number) {
  return locked(
    trx,
    trx
      .selectFrom('quote_payments')
      .select(['id', 'amount_cents', 'carried_cents', 'method', 'paid_on', 'reference', 'created_by'])
      .where('workspace_id', '=', workspaceId)
      .where('quote_id', '=', quoteId)
      .whereRef('carried_cents', '<', 'amount_cents')
      .orderBy('paid_on')
      .orderBy('id'),
  ).execute();
}

export async function addCarried(trx: Kysely<DB>, workspaceId: number, id: number, cents: number): Promise<void> {
  await trx
    .updateTable('quote_payments')
    .set((eb) => ({ carried_cents: eb('carried_cents', '+', cents) }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** The quote's deposit figures, its row locked until commit so concurrent payments queue. */
export function lockQuoteForDeposit(trx: Kysely<DB>, workspaceId: number, quoteId: number) {
  return locked(
    trx,
    trx
      .selectFrom('quotes')
      .select(['id', 'status', 'total', 'deposit', 'deposit_unit', 'deposit_paid_cents'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', quoteId),
  ).executeTakeFirst();
}

export async function setDepositPaid(trx: Kysely<DB>, workspaceId: number, quoteId: number, paidCents: number): Promise<void> {
  await trx.updateTable('quotes').set({ deposit_paid_cents: paidCents, updated_at: now() }).where('workspace_id', '=', workspaceId).where('id', '=', quoteId).execute();
}
