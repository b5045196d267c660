import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.ts';

// Home's payments by month (A2) summed a workspace's payments of the last 12 months on
// every visit: 17 ms at 170,000 payments, and more with every payment recorded.
// `payment_days` holds each workspace's payments per day (cents and count), kept by
// triggers in the payment's own transaction as `row_counts` is (0009), so the read is
// at most 366 days whatever the number of payments. PostgreSQL spreads a day over 16
// slots (chosen by backend pid): concurrent payments of one workspace and day do not
// queue on one row until commit; a day is the sum of its slots. Payments are summed
// only while their workspace exists (joined): a workspace's cascade delete removes
// its days. The index that served the old read (0019) served nothing else.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payment_days')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('paid_on', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('cents', isSqlite(db) ? 'integer' : 'bigint', (c) => c.notNull())
    .addColumn('n', isSqlite(db) ? 'integer' : 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_days_pk', ['workspace_id', 'paid_on', 'slot'])
    .execute();
  if (isSqlite(db)) await sqliteUp(db);
  else await postgresUp(db);
  await sql`insert into payment_days (workspace_id, paid_on, slot, cents, n)
    select workspace_id, paid_on, 0, sum(amount_cents), count(*) from invoice_payments group by workspace_id, paid_on`.execute(db);
  await db.schema.dropIndex('invoice_payments_workspace_paid_on').execute();
}

// One writer at a time on SQLite: one slot.
async function sqliteUp(db: Kysely<unknown>) {
  const add = (row: 'new' | 'old', sign: '' | '-') => sql.raw(`
    insert into payment_days (workspace_id, paid_on, slot, cents, n)
      select id, ${row}.paid_on, 0, ${sign}${row}.amount_cents, ${sign}1 from workspaces where id = ${row}.workspace_id
      on conflict (workspace_id, paid_on, slot) do update set cents = cents + excluded.cents, n = n + excluded.n;`);
  await sql`create trigger payment_days_insert after insert on invoice_payments begin ${add('new', '')} end`.execute(db);
  await sql`create trigger payment_days_delete after delete on invoice_payments begin ${add('old', '-')} end`.execute(db);
  await sql`create trigger payment_days_update after update of workspace_id, paid_on, amount_cents on invoice_payments begin
    ${add('old', '-')} ${add('new', '')} end`.execute(db);
}

async function postgresUp(db: Kysely<unknown>) {
  // Statement-level, with the transition tables: a cascade delete of an invoice's
  // payments moves each day once, not once per payment.
  const add = (rows: 'new_rows' | 'old_rows', sign: '' | '-') => sql.raw(`
    insert into payment_days (workspace_id, paid_on, slot, cents, n)
      select c.workspace_id, c.paid_on, pg_backend_pid() % 16, ${sign}sum(c.amount_cents), ${sign}count(*)
      from ${rows} c join workspaces w on w.id = c.workspace_id
      group by c.workspace_id, c.paid_on order by c.workspace_id, c.paid_on
      on conflict (workspace_id, paid_on, slot) do update set cents = payment_days.cents + excluded.cents, n = payment_days.n + excluded.n;`);
  await sql`create function fieldwork_payment_days() returns trigger language plpgsql as $$
    begin
      if TG_OP <> 'INSERT' then ${add('old_rows', '-')} end if;
      if TG_OP <> 'DELETE' then ${add('new_rows', '')} end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger payment_days_insert after insert on invoice_payments referencing new table as new_rows
    for each statement execute function fieldwork_payment_days()`.execute(db);
  await sql`create trigger payment_days_delete after delete on invoice_payments referencing old table as old_rows
    for each statement execute function fieldwork_payment_days()`.execute(db);
  await sql`create trigger payment_days_update after update on invoice_payments referencing old table as old_rows new table as new_rows
    for each statement execute function fieldwork_payment_days()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('invoice_payments_workspace_paid_on').on('invoice_payments').columns(['workspace_id', 'paid_on', 'amount_cents']).execute();
  for (const t of ['insert', 'delete', 'update']) await sql`drop trigger ${sql.raw(`payment_days_${t}`)}${isSqlite(db) ? sql`` : sql` on invoice_payments`}`.execute(db);
  if (!isSqlite(db)) await sql`drop function fieldwork_payment_days()`.execute(db);
  await db.schema.dropTable('payment_days').execute();
}
