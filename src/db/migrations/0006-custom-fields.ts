import type { Kysely } from 'kysely';
import { jsonType, notNull, withId, workspaceRef } from './helpers.ts';

// D23: a workspace's custom field definitions, per module; records' `custom_fields`
// and the form's `customFields` are validated against them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('custom_fields'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('module_type', 'text', notNull) // contact | request | quote | job | invoice
    .addColumn('key', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('type', 'text', notNull) // text | number | boolean | date | select
    .addColumn('options', jsonType(db)) // select: the allowed values
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addUniqueConstraint('custom_fields_key', ['workspace_id', 'module_type', 'key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('custom_fields').execute();
}
