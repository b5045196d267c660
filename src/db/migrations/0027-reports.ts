import { type Kysely, sql } from 'kysely';

// E26, E27: a member's cost per hour, and the indexes the reports read by date.
// `cost_rate_cents` is the rate in integer cents (F260), so labour costs add up to the cent.
// Revenue reads invoices by `date` (status, total and client beside it, so the index
// answers without the rows); the quotes report reads a workspace's first moves to
// `awaiting_response` by when they happened; receivables read only open invoices (a
// partial index holding their balances); collected-by-client reads payments by day.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('cost_rate_cents', 'integer').execute();
  await sql`create index invoices_workspace_date on invoices (workspace_id, date, status, contact_id, total)`.execute(db);
  await sql`create index invoices_open_balances on invoices (workspace_id, contact_id, due_date, total, amount_paid_cents) where status in ('sent', 'partially_paid', 'overdue')`.execute(db);
  await sql`create index invoice_payments_workspace_paid_on_invoice on invoice_payments (workspace_id, paid_on, invoice_id, amount_cents)`.execute(db);
  await sql`create index quote_status_changes_workspace_status_at on quote_status_changes (workspace_id, status, created_at, quote_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('quote_status_changes_workspace_status_at').execute();
  await db.schema.dropIndex('invoice_payments_workspace_paid_on_invoice').execute();
  await db.schema.dropIndex('invoices_open_balances').execute();
  await db.schema.dropIndex('invoices_workspace_date').execute();
  await db.schema.alterTable('users').dropColumn('cost_rate_cents').execute();
}
