import type { Kysely } from 'kysely';

// Issue 22: the workspace's logo (A125). Its bytes sit in the public bucket under a
// server-chosen key; the workspace names the key and the sniffed type. No row in
// `stored_files`: upload links share stored files by content, and a logo must not
// become one of them (deleting an upload would take it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('logo_key', 'text').execute();
  await db.schema.alterTable('workspaces').addColumn('logo_type', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').dropColumn('logo_type').execute();
  await db.schema.alterTable('workspaces').dropColumn('logo_key').execute();
}
