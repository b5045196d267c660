import { type Kysely, sql } from 'kysely';
import { notNull, withId, workspaceRef } from './helpers.ts';

// EXTENSIONS E28, E29. An import or an export is a durable row the worker claims with a
// lease (src/outbox/claim.ts), so a killed process's work is claimed again: an import
// resumes after the last committed batch (`processed`, written in the batch's
// transaction), an export starts over. JSON columns are text on both dialects: they are
// written whole and read whole, never queried into.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('imports'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('kind', 'text', notNull) // clients | services
    .addColumn('status', 'text', notNull) // queued | running | done | failed
    .addColumn('dry_run', 'integer', notNull)
    .addColumn('mapping', 'text') // JSON {column header: field}, null: matched by header
    .addColumn('file_key', 'text', notNull) // the CSV in the private bucket
    .addColumn('created_by', 'text')
    .addColumn('rows', 'integer', notNull) // data rows in the file (0 until counted)
    .addColumn('processed', 'integer', notNull) // data rows done, committed with their writes
    .addColumn('created', 'integer', notNull)
    .addColumn('updated', 'integer', notNull)
    .addColumn('skipped', 'integer', notNull)
    .addColumn('errors', 'text', notNull) // JSON [{row, field, message}]
    .addColumn('failure', 'text') // why a failed import stopped
    .addColumn('attempts', 'integer', notNull)
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('imports_workspace').on('imports').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('imports_due').on('imports').column('id').where(sql.ref('status'), 'in', ['queued', 'running']).execute();

  await withId(db, db.schema.createTable('exports'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('status', 'text', notNull) // queued | running | done | failed
    .addColumn('file_key', 'text') // the ZIP in the private bucket, once done
    .addColumn('bytes', 'integer')
    .addColumn('counts', 'text') // JSON {resource: records}
    .addColumn('created_by', 'text')
    .addColumn('failure', 'text')
    .addColumn('attempts', 'integer', notNull)
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('exports_workspace').on('exports').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('exports_due').on('exports').column('id').where(sql.ref('status'), 'in', ['queued', 'running']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('exports').execute();
  await db.schema.dropTable('imports').execute();
}
