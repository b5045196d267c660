import { type Kysely, sql } from 'kysely';
import { withId, workspaceRef } from './helpers.ts';

// EXTENSIONS E1, E3, E4: invoice numbers (D13, kind `invoices`), payments in
// integer cents, and the paid amount kept on the invoice row (updated in the
// payment's transaction, under the invoice's row lock) so lists and the single
// GET read `amount_paid` and `balance` without summing anything.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('number', 'integer').execute();
  await db.schema.alterTable('invoices').addColumn('amount_paid_cents', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await numberExistingInvoices(db);
  await db.schema.createIndex('invoices_workspace_number').on('invoices').columns(['workspace_id', 'number']).unique().execute();

  await withId(db, db.schema.createTable('invoice_payments'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('invoice_id', 'integer', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('paid_on', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('note', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoice_payments_workspace_invoice').on('invoice_payments').columns(['workspace_id', 'invoice_id', 'paid_on', 'id']).execute();
}

/**
 * E1: invoices that exist are numbered in creation order per workspace, and each
 * workspace's `invoices` counter continues after its last number (D13). One
 * statement each, the same SQL on both databases.
 */
export async function numberExistingInvoices<T>(db: Kysely<T>): Promise<void> {
  await sql`update invoices set number = (
      select r.n from (select id, row_number() over (partition by workspace_id order by created_at, id) as n from invoices) r
      where r.id = invoices.id)
    where number is null`.execute(db);
  await sql`insert into counters (workspace_id, kind, value)
      select workspace_id, 'invoices', max(number) from invoices group by workspace_id
    on conflict (workspace_id, kind) do update set value = excluded.value`.execute(db);
}
