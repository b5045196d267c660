import type { Kysely } from 'kysely';
import { jsonType, notNull, withId, workspaceRef } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  const json = jsonType(db);

  await withId(db, db.schema.createTable('workspaces'))
    .addColumn('name', 'text', notNull)
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('industry', 'text')
    .addColumn('industry_key', 'text')
    .addColumn('country', 'text')
    .addColumn('currency', 'text')
    .addColumn('timezone', 'text')
    .addColumn('about', 'text')
    .addColumn('settings', json)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('users'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('user_id', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', notNull)
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('phone', 'text')
    .addColumn('role', 'text', notNull)
    .addColumn('job_title', 'text')
    .addColumn('preferences', json)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('users_workspace_email', ['workspace_id', 'email'])
    .execute();

  await withId(db, db.schema.createTable('api_keys'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('type', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('user_id', 'text')
    .addColumn('name', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('legacy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id', 'id']).execute();

  await withId(db, db.schema.createTable('contacts'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('first_name', 'text', notNull)
    .addColumn('last_name', 'text', notNull)
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('secondary_email', 'text')
    .addColumn('secondary_phone', 'text')
    .addColumn('company', 'text')
    .addColumn('company_department', 'text')
    .addColumn('company_position', 'text')
    .addColumn('title', 'text')
    .addColumn('type', 'text', notNull)
    .addColumn('owner_id', 'text')
    .addColumn('info', json)
    .addColumn('custom_fields', json)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('contacts_workspace_created').on('contacts').columns(['workspace_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('contacts_workspace_email').on('contacts').columns(['workspace_id', 'email']).execute();
  await db.schema.createIndex('contacts_workspace_phone').on('contacts').columns(['workspace_id', 'phone']).execute();

  await withId(db, db.schema.createTable('properties'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('street', 'text', notNull)
    .addColumn('street_2', 'text', notNull)
    .addColumn('city', 'text', notNull)
    .addColumn('state', 'text', notNull)
    .addColumn('postal_code', 'text', notNull)
    .addColumn('country', 'text', notNull)
    .addColumn('property_type', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('properties_workspace_created').on('properties').columns(['workspace_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('contact_properties')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('contact_id', 'integer', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('property_id', 'integer', (c) => c.notNull().references('properties.id').onDelete('cascade'))
    .addColumn('role', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('contact_properties_pk', ['workspace_id', 'contact_id', 'property_id'])
    .execute();
  await db.schema.createIndex('contact_properties_property').on('contact_properties').columns(['workspace_id', 'property_id']).execute();

  await withId(db, db.schema.createTable('outbox'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('event', 'text', notNull)
    .addColumn('payload', json, notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('outbox_workspace').on('outbox').columns(['workspace_id', 'id']).execute();
}
