import { type Kysely, sql } from 'kysely';
import { withId, workspaceRef } from './helpers.ts';

// E22, E23: billing the work done, and deposits.
// A visit's `invoice_id` is the invoice that billed it (null until billed): billing is
// one conditional write (`... where invoice_id is null`), so a visit is billed once
// whatever the number of batches and processes. Deleting the invoice unbills its
// visits by the foreign key; cancelling it does so in the status change's transaction.
// `events_unbilled` holds only completed, unbilled visits of jobs: what billable-work
// and the batch read, whatever the number of billed visits.
// A quote's deposit payments (E3's shape, in integer cents) are `quote_payments`;
// `carried_cents` is how much of each was carried onto the job's invoices as
// payments, so a deposit is carried once. `deposit_paid_cents` on the quote is their
// sum, kept in the payment's transaction as invoices' `amount_paid_cents` is. An
// invoice payment carried from a deposit names it (`deposit_id`): voiding it, or
// deleting or cancelling its invoice, gives the deposit back for the next invoice.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('invoice_id', 'integer', (c) => c.references('invoices.id').onDelete('set null')).execute();
  await sql`create index events_unbilled on events (workspace_id, job_id, start_date) where status = 'completed' and invoice_id is null and job_id is not null`.execute(db);
  await sql`create index events_invoice on events (invoice_id) where invoice_id is not null`.execute(db);
  await db.schema.alterTable('quotes').addColumn('deposit_paid_cents', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await withId(db, db.schema.createTable('quote_payments'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('quote_id', 'integer', (c) => c.notNull().references('quotes.id').onDelete('cascade'))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('carried_cents', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('paid_on', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('note', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quote_payments_workspace_quote').on('quote_payments').columns(['workspace_id', 'quote_id', 'paid_on', 'id']).execute();
  await db.schema.alterTable('invoice_payments').addColumn('deposit_id', 'integer', (c) => c.references('quote_payments.id').onDelete('set null')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invoice_payments').dropColumn('deposit_id').execute();
  await db.schema.dropTable('quote_payments').execute();
  await db.schema.alterTable('quotes').dropColumn('deposit_paid_cents').execute();
  await db.schema.dropIndex('events_invoice').execute();
  await db.schema.dropIndex('events_unbilled').execute();
  await db.schema.alterTable('events').dropColumn('invoice_id').execute();
}
