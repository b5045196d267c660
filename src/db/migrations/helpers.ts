import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, SqliteAdapter } from 'kysely';

// One migration file serves both dialects; only these column shapes differ.

export const isSqlite = (db: Kysely<unknown>): boolean => db.getExecutor().adapter instanceof SqliteAdapter;

/** Integer primary key that the database assigns. */
export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>) {
  return isSqlite(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn('id', 'serial', (c) => c.primaryKey());
}

export const jsonType = (db: Kysely<unknown>) => (isSqlite(db) ? 'text' : 'jsonb');

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

/** workspace_id, referencing workspaces, on every tenant table. */
export const workspaceRef = (c: ColumnDefinitionBuilder) => c.notNull().references('workspaces.id').onDelete('cascade');

/** Money and quantities: 8-byte floats on both (SQLite `real` is 8 bytes; PostgreSQL's is 4). */
export const numberType = (db: Kysely<unknown>) => (isSqlite(db) ? 'real' : 'double precision');

/** The columns every priced document shares (D7): quotes, jobs, invoices, templates. */
export function withPricing<T extends string, C extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, C>) {
  const num = numberType(db);
  return table
    .addColumn('line_items', jsonType(db), notNull)
    .addColumn('discount', num, notNull)
    .addColumn('discount_unit', 'text', notNull)
    .addColumn('deposit', num, notNull)
    .addColumn('deposit_unit', 'text', notNull)
    .addColumn('tax_rate', num, notNull)
    .addColumn('tax_rate_id', 'integer', (c) => c.references('tax_rates.id').onDelete('set null'))
    .addColumn('total', num, notNull);
}
