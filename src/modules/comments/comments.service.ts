import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { checkReferences, userRefs } from '../../db/references.ts';
import { type AuthContext, requireScope } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { type Detail, notFound, ValidationError } from '../../kernel/errors.ts';
import type { PageResult } from '../../db/list-query.ts';
import { attachScope, isModuleType, type ModuleType, parentScope, requireParent } from '../uploads/parents.ts';
import { notifyComment } from './comment-notifications.ts';
import { type CommentRow, findActiveComment, insertComment, listActiveComments, trashComment } from './comments.repo.ts';
import type { Comment, CommentCreate, CommentQuery } from './comments.schemas.ts';

/** `profiles` for a page of comments: one query for all their authors, none per row. */
async function withProfiles(db: Kysely<DB>, workspaceId: number, rows: CommentRow[]): Promise<Comment[]> {
  const users = await userRefs(
    db,
    workspaceId,
    rows.map((r) => r.author_id),
  );
  return rows.map((r) => ({ ...r, profiles: (r.author_id && users.get(r.author_id)) || null }));
}

export function commentsService({ db }: AppContext) {
  /** An active comment, then the scope of its parent (SPEC Comments). */
  async function commentOrThrow(auth: AuthContext, id: number, access: 'read' | 'write'): Promise<CommentRow> {
    const comment = await findActiveComment(db, auth.workspaceId, id);
    if (!comment || !isModuleType(comment.related_type)) throw notFound('Comment'); // D32: trashed too
    requireScope(auth, parentScope(comment.related_type, access), 'module');
    return comment;
  }

  return {
    async create(auth: AuthContext, body: CommentCreate): Promise<Comment> {
      const type = body.module_type as ModuleType;
      const ws = auth.workspaceId;
      requireScope(auth, attachScope(auth, type), 'module');
      return transact(db, auth, async (trx) => {
        await requireParent(trx, ws, type, body.module_id); // D32
        const details: Detail[] = [];
        // D11: reply_to must be an active comment on this same parent.
        let repliedTo: CommentRow | undefined;
        if (body.reply_to != null) {
          repliedTo = await findActiveComment(trx, ws, body.reply_to);
          if (!repliedTo || repliedTo.related_type !== type || repliedTo.related_id !== body.module_id) {
            details.push({ path: ['reply_to'], message: `reply_to ${body.reply_to} is not a comment on this ${type}` });
          }
        }
        try {
          await checkReferences(trx, ws, { users: { mentioned_user_ids: body.mentioned_user_ids } }); // D11
        } catch (err) {
          if (!(err instanceof ValidationError)) throw err;
          details.push(...(err.details ?? []));
        }
        if (details.length) throw new ValidationError(details);

        const mentioned = [...new Set(body.mentioned_user_ids ?? [])];
        const id = await insertComment(trx, {
            workspace_id: ws,
            related_type: type,
            related_id: body.module_id,
            comment: body.comment,
            author_id: auth.userId, // SPEC Authentication 4: the key's user
            reply_to: body.reply_to ?? null,
            mentioned_user_ids: toJson(mentioned),
            status: 'active',
            created_at: now(),
            modified_at: null,
        });
        await notifyComment(
          trx,
          ws,
          {
            id,
            related_type: type,
            related_id: body.module_id,
            comment: body.comment,
            author_id: auth.userId,
            reply_to: body.reply_to ?? null,
            mentioned_user_ids: mentioned,
          },
          repliedTo?.author_id ?? null,
        );
        const [comment] = await withProfiles(trx, ws, [(await findActiveComment(trx, ws, id))!]);
        return comment; // the answer, read in the transaction that stores it (E11)
      });
    },

    async list(auth: AuthContext, query: CommentQuery): Promise<PageResult<Comment>> {
      const type = query.module_type as ModuleType;
      requireScope(auth, parentScope(type, 'read'), 'module');
      await requireParent(db, auth.workspaceId, type, query.module_id);
      const page = await listActiveComments(db, auth.workspaceId, query);
      return { rows: await withProfiles(db, auth.workspaceId, page.rows), pagination: page.pagination };
    },

    async get(auth: AuthContext, id: number): Promise<Comment> {
      const [comment] = await withProfiles(db, auth.workspaceId, [await commentOrThrow(auth, id, 'read')]);
      return comment;
    },

    /** Soft: status `trash`; the comment stays stored but is gone from every read (SPEC States). */
    async remove(auth: AuthContext, id: number): Promise<void> {
      await commentOrThrow(auth, id, 'write');
      await transact(db, auth, async (trx) => {
        if (!(await trashComment(trx, auth.workspaceId, id))) throw notFound('Comment'); // trashed meanwhile
      });
    },
  };
}
