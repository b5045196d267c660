import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { jsonType, notNull, numberType, withId, withPricing, workspaceRef } from './helpers.ts';

// Requests, quotes, jobs, invoices, saved services, tax rates, quote templates,
// and the per-workspace number sequences (D13).
export async function up(db: Kysely<unknown>): Promise<void> {
  const json = jsonType(db);
  const num = numberType(db);
  // D12: a contact stays while a request, quote, job or invoice points at it: no cascade.
  const contactRef = (c: ColumnDefinitionBuilder) => c.references('contacts.id');
  const propertyRef = (c: ColumnDefinitionBuilder) => c.references('properties.id').onDelete('set null');

  await db.schema
    .createTable('counters')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('kind', 'text', notNull)
    .addColumn('value', 'integer', notNull)
    .addPrimaryKeyConstraint('counters_pk', ['workspace_id', 'kind'])
    .execute();

  await withId(db, db.schema.createTable('tax_rates'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('rate', num, notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('services'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('price', num, notNull)
    .addColumn('sku', 'text')
    .addColumn('type', 'text', notNull)
    .addColumn('taxable', 'integer', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withPricing(db, withId(db, db.schema.createTable('quote_templates')))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('template_name', 'text', notNull)
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('message', 'text')
    .addColumn('payment_instructions', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('requests'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('number', 'integer', notNull)
    .addColumn('name', 'text')
    .addColumn('contact_id', 'integer', contactRef)
    .addColumn('property_id', 'integer', propertyRef)
    .addColumn('assignee_id', 'text')
    .addColumn('details', 'text')
    .addColumn('assessment', 'text')
    .addColumn('requested_on', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('data', json)
    .addColumn('custom_fields', json)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('requests_number', ['workspace_id', 'number'])
    .execute();

  await withPricing(db, withId(db, db.schema.createTable('quotes')))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('number', 'integer', notNull)
    .addColumn('name', 'text')
    .addColumn('contact_id', 'integer', contactRef)
    .addColumn('property_id', 'integer', propertyRef)
    .addColumn('request_id', 'integer', (c) => c.references('requests.id').onDelete('set null'))
    .addColumn('salesperson_id', 'text')
    .addColumn('template_id', 'integer') // no foreign key: deleting a template leaves its quotes alone
    .addColumn('date', 'text')
    .addColumn('expire_on', 'text')
    .addColumn('message', 'text')
    .addColumn('payment_instructions', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('custom_fields', json)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('quotes_number', ['workspace_id', 'number'])
    .execute();

  // The optional `comment` of a quote status change, kept with the change.
  await withId(db, db.schema.createTable('quote_status_changes'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('quote_id', 'integer', (c) => c.notNull().references('quotes.id').onDelete('cascade'))
    .addColumn('status', 'text', notNull)
    .addColumn('comment', 'text')
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withPricing(db, withId(db, db.schema.createTable('jobs')))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('number', 'integer', notNull)
    .addColumn('name', 'text')
    .addColumn('contact_id', 'integer', contactRef)
    .addColumn('property_id', 'integer', propertyRef)
    .addColumn('request_id', 'integer', (c) => c.references('requests.id').onDelete('set null'))
    .addColumn('quote_id', 'integer', (c) => c.references('quotes.id').onDelete('set null'))
    .addColumn('salesperson_id', 'text')
    .addColumn('type', 'text', notNull)
    .addColumn('expected_end_date', 'text')
    .addColumn('expenses', json, notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('custom_fields', json)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('jobs_number', ['workspace_id', 'number'])
    // D14: a quote yields at most one job, enforced by the database too.
    .addUniqueConstraint('jobs_quote', ['quote_id'])
    .execute();

  await withPricing(db, withId(db, db.schema.createTable('invoices')))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('name', 'text')
    .addColumn('contact_id', 'integer', contactRef)
    .addColumn('property_id', 'integer', propertyRef)
    .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('quote_id', 'integer', (c) => c.references('quotes.id').onDelete('set null'))
    .addColumn('parent_id', 'integer', (c) => c.references('invoices.id').onDelete('set null'))
    .addColumn('salesperson_id', 'text')
    .addColumn('date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('send_on', 'text')
    .addColumn('message', 'text')
    .addColumn('payment_instructions', 'text')
    .addColumn('payment_terms', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('event_ids', json, notNull)
    .addColumn('custom_fields', json)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  // Every index starts with workspace_id (sharding by workspace stays possible).
  for (const table of ['requests', 'quotes', 'jobs', 'invoices', 'services', 'tax_rates', 'quote_templates'] as const) {
    await db.schema.createIndex(`${table}_workspace_created`).on(table).columns(['workspace_id', 'created_at', 'id']).execute();
  }
  for (const table of ['requests', 'quotes', 'jobs', 'invoices'] as const) {
    await db.schema.createIndex(`${table}_workspace_contact`).on(table).columns(['workspace_id', 'contact_id']).execute();
    await db.schema.createIndex(`${table}_workspace_status`).on(table).columns(['workspace_id', 'status']).execute();
  }
  await db.schema.createIndex('invoices_workspace_job').on('invoices').columns(['workspace_id', 'job_id']).execute();
  await db.schema.createIndex('quote_status_changes_quote').on('quote_status_changes').columns(['workspace_id', 'quote_id']).execute();
}
