import { type Kysely, sql } from 'kysely';

// Issue 22: the business on its documents, and custom fields that can be edited.
// The workspace names how customers reach the business (address, phone, email,
// website, tax or licence number). Custom field definitions gain
// `updated_at`, since labels, options and `required` may now change (E12 sorts
// and filters on it), and so do API keys (their revocation); existing rows start
// at their `created_at` (a revoked key at its revocation).
const BUSINESS_COLUMNS = ['address', 'phone', 'email', 'website', 'tax_number'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of BUSINESS_COLUMNS) await db.schema.alterTable('workspaces').addColumn(column, 'text').execute();
  await db.schema.alterTable('custom_fields').addColumn('updated_at', 'text').execute();
  await sql`update custom_fields set updated_at = created_at`.execute(db);
  await db.schema.alterTable('api_keys').addColumn('updated_at', 'text').execute();
  await sql`update api_keys set updated_at = coalesce(revoked_at, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('updated_at').execute();
  await db.schema.alterTable('custom_fields').dropColumn('updated_at').execute();
  for (const column of BUSINESS_COLUMNS) await db.schema.alterTable('workspaces').dropColumn(column).execute();
}
