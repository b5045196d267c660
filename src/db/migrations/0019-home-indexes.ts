import type { Kysely } from 'kysely';

// Home's payments by month (A2) read a workspace's payments of the last 12 months:
// without this index they scanned every payment the workspace ever had. It covers the
// read (date and amount), which groups by day in index order, with no sort.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('invoice_payments_workspace_paid_on').on('invoice_payments').columns(['workspace_id', 'paid_on', 'amount_cents']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('invoice_payments_workspace_paid_on').execute();
}
