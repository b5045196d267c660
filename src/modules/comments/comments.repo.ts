import type { Insertable, Kysely } from 'kysely';
import { fromJson } from '../../db/json.ts';
import type { CommentsTable, DB } from '../../db/schema.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { CommentQuery } from './comments.schemas.ts';

const COLUMNS = [
  'id',
  'workspace_id',
  'related_type',
  'related_id',
  'comment',
  'author_id',
  'reply_to',
  'mentioned_user_ids',
  'status',
  'created_at',
  'modified_at',
] as const;

// F81: a comment is never edited (trashing takes it off the list), so its updated_at is its created_at.
const listSpec: ListSpec = { id: 'id', sort: { created_at: 'created_at', id: 'id', updated_at: 'created_at' }, search: ['comment'] };

export type CommentRow = Awaited<ReturnType<typeof findActiveComment>> & object;

const decode = <R extends { mentioned_user_ids: string | null }>(row: R) => ({ ...row, mentioned_user_ids: fromJson<string[]>(row.mentioned_user_ids) ?? [] });

/** An active comment of the workspace; a trashed one is as good as absent (D32). */
export async function findActiveComment(db: Kysely<DB>, workspaceId: number, id: number) {
  const row = await db
    .selectFrom('comments')
    .select(COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return row && decode(row);
}

const list = listOf(listSpec, (db, f: { ws: number; module_type: string; module_id: number }) =>
  db
    .selectFrom('comments')
    .select(COLUMNS)
    .where('workspace_id', '=', f.ws)
    .where('related_type', '=', f.module_type)
    .where('related_id', '=', f.module_id)
    .where('status', '=', 'active'),
);

export async function listActiveComments(db: Kysely<DB>, workspaceId: number, q: CommentQuery) {
  const page = await list(db, { ws: workspaceId, module_type: q.module_type, module_id: q.module_id }, q);
  return { rows: page.rows.map(decode), pagination: page.pagination };
}

export async function insertComment(db: Kysely<DB>, values: Insertable<CommentsTable>): Promise<number> {
  const { id } = await db.insertInto('comments').values(values).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Soft delete (SPEC States); false when it was not active (trashed meanwhile). */
export async function trashComment(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean> {
  const r = await db
    .updateTable('comments')
    .set({ status: 'trash' })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** D12: a deleted parent's comments, whatever their status. */
export async function deleteCommentsOf(trx: Kysely<DB>, workspaceId: number, relatedType: string, relatedId: number): Promise<void> {
  await trx.deleteFrom('comments').where('workspace_id', '=', workspaceId).where('related_type', '=', relatedType).where('related_id', '=', relatedId).execute();
}
