import type { Kysely } from 'kysely';
import { jsonType, notNull, withId, workspaceRef } from './helpers.ts';

// Uploads (stored files and their links), comments, internal notifications, the
// queue of bytes to remove, and service-wide secrets (the URL-signing key, D20).
export async function up(db: Kysely<unknown>): Promise<void> {
  const json = jsonType(db);

  // One row per stored object. Identical bytes in one workspace and bucket are
  // stored once (the unique sha256), so several links can share a file (SPEC Uploads 3).
  // `path` is a random server-chosen key, never reused: a deleted file's name can't
  // be taken by a new one while its bytes are still being removed.
  await withId(db, db.schema.createTable('stored_files'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('bucket', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('sha256', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('mime_type', 'text', notNull)
    .addColumn('original_file_name', 'text', notNull)
    .addColumn('meta', json)
    .addColumn('created_at', 'text', notNull)
    .addUniqueConstraint('stored_files_path', ['bucket', 'path'])
    .addUniqueConstraint('stored_files_content', ['workspace_id', 'bucket', 'sha256'])
    .execute();

  await withId(db, db.schema.createTable('upload_links'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    // No cascade: a stored file goes only when its last link has gone (and its bytes with it).
    .addColumn('file_id', 'integer', (c) => c.notNull().references('stored_files.id'))
    .addColumn('module_type', 'text', notNull)
    .addColumn('module_id', 'integer', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('category', 'text', notNull)
    .addColumn('original_file_name', 'text', notNull)
    .addColumn('owner_id', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('upload_links_parent').on('upload_links').columns(['workspace_id', 'module_type', 'module_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('upload_links_file').on('upload_links').columns(['workspace_id', 'file_id']).execute();

  // Bytes whose stored_files row is gone, written in the same transaction; a sweeper
  // removes them after commit, so a rolled-back delete never loses bytes and a crash
  // never leaves them behind for good.
  await withId(db, db.schema.createTable('file_deletions'))
    .addColumn('workspace_id', 'integer', notNull)
    .addColumn('bucket', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('comments'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('related_type', 'text', notNull)
    .addColumn('related_id', 'integer', notNull)
    .addColumn('comment', 'text', notNull)
    .addColumn('author_id', 'text')
    .addColumn('reply_to', 'integer', (c) => c.references('comments.id').onDelete('set null'))
    .addColumn('mentioned_user_ids', json)
    .addColumn('status', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('modified_at', 'text')
    .execute();
  await db.schema.createIndex('comments_parent').on('comments').columns(['workspace_id', 'related_type', 'related_id', 'created_at', 'id']).execute();

  // D22: stored per recipient user.
  await withId(db, db.schema.createTable('internal_notifications'))
    .addColumn('workspace_id', 'integer', workspaceRef)
    .addColumn('user_id', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('module_type', 'text')
    .addColumn('module_id', 'integer')
    .addColumn('data', json)
    .addColumn('created_at', 'text', notNull)
    .addColumn('read_at', 'text')
    .execute();
  await db.schema.createIndex('internal_notifications_user').on('internal_notifications').columns(['workspace_id', 'user_id', 'created_at', 'id']).execute();

  // Service-wide, not per tenant: the file URL signing key lives here so signed URLs
  // survive a restart and are shared by every instance (D20).
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
}
