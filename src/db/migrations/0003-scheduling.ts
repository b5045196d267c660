import type { Kysely } from 'kysely';
import { notNull, numberType, withId, workspaceRef } from './helpers.ts';

// Events and their assignees, time entries and the weekly timesheets they roll up into (D9).
export async function up(db: Kysely<unknown>): Promise<void> {
  const num = numberType(db);

  // Deleting a job, request or quote is permanent (D12) but leaves the events and
  // time entries that pointed at it, unlinked: an appointment stays on the calendar and
  // logged hours stay in their timesheet (a cascade would also skip the D9 recompute).
  await withId(db, db.schema.createTable('events'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('request_id', 'integer', (c) => c.references('requests.id').onDelete('set null'))
    .addColumn('start_date', 'text', notNull)
    .addColumn('end_date', 'text', notNull)
    .addColumn('start_time', 'text')
    .addColumn('end_time', 'text')
    .addColumn('all_day', 'integer', notNull)
    .addColumn('multi_day', 'integer', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  // User UUIDs are checked on write (D11), never foreign keys, as everywhere else.
  await db.schema
    .createTable('event_assignees')
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('user_id', 'text', notNull)
    .addPrimaryKeyConstraint('event_assignees_pk', ['workspace_id', 'event_id', 'user_id'])
    .execute();

  // One per user and week (D9); the unique key lets concurrent writers create it once.
  await withId(db, db.schema.createTable('timesheets'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('user_id', 'text', notNull)
    .addColumn('start_date', 'text', notNull)
    .addColumn('end_date', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('total_time', num, notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addUniqueConstraint('timesheets_user_week', ['workspace_id', 'user_id', 'start_date'])
    .execute();

  await withId(db, db.schema.createTable('time_entries'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    // Timesheets are never deleted through the API; the cascade only serves workspace removal.
    .addColumn('timesheet_id', 'integer', (c) => c.notNull().references('timesheets.id').onDelete('cascade'))
    .addColumn('user_id', 'text', notNull)
    .addColumn('start_date', 'text', notNull)
    .addColumn('end_date', 'text', notNull)
    .addColumn('start_time', 'text')
    .addColumn('end_time', 'text')
    .addColumn('total_time', num, notNull)
    .addColumn('description', 'text')
    .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
    .addColumn('request_id', 'integer', (c) => c.references('requests.id').onDelete('set null'))
    .addColumn('quote_id', 'integer', (c) => c.references('quotes.id').onDelete('set null'))
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  // Every index starts with workspace_id (sharding by workspace stays possible).
  for (const table of ['events', 'timesheets', 'time_entries'] as const) {
    await db.schema.createIndex(`${table}_workspace_created`).on(table).columns(['workspace_id', 'created_at', 'id']).execute();
  }
  await db.schema.createIndex('events_workspace_start').on('events').columns(['workspace_id', 'start_date']).execute();
  await db.schema.createIndex('events_workspace_job').on('events').columns(['workspace_id', 'job_id']).execute();
  await db.schema.createIndex('events_workspace_request').on('events').columns(['workspace_id', 'request_id']).execute();
  await db.schema.createIndex('event_assignees_user').on('event_assignees').columns(['workspace_id', 'user_id', 'event_id']).execute();
  await db.schema.createIndex('time_entries_workspace_timesheet').on('time_entries').columns(['workspace_id', 'timesheet_id']).execute();
  await db.schema.createIndex('time_entries_workspace_user').on('time_entries').columns(['workspace_id', 'user_id', 'start_date']).execute();
  await db.schema.createIndex('time_entries_workspace_job').on('time_entries').columns(['workspace_id', 'job_id']).execute();
  await db.schema.createIndex('time_entries_workspace_start').on('time_entries').columns(['workspace_id', 'start_date']).execute();
}
