import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Timestamp, Uuid } from '../../kernel/schemas.ts';
import { MODULE_TYPES } from '../uploads/parents.ts';

const ModuleType = Type.Enum([...MODULE_TYPES]);

export const CommentCreate = Type.Object({
  module_type: ModuleType,
  module_id: Id,
  comment: Type.String({ minLength: 1, maxLength: 10_000 }), // SPEC Limits: 1 to 10,000 characters
  mentioned_user_ids: Type.Optional(Type.Array(Uuid, { maxItems: 50 })), // SPEC Limits: at most 50
  reply_to: Type.Optional(Nullable(Id)),
});
export type CommentCreate = Static<typeof CommentCreate>;

export const CommentQuery = listQuery(['created_at', 'id'], {
  module_type: ModuleType,
  module_id: Id,
});
export type CommentQuery = Static<typeof CommentQuery>;

/** SPEC "Comment" `profiles`: the author. */
export const Profile = Type.Object({
  id: Uuid,
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Type.String(),
});

export const Comment = Type.Object({
  id: Id,
  workspace_id: Id,
  related_type: Type.String(),
  related_id: Id,
  comment: Type.String(),
  author_id: Nullable(Type.String()),
  reply_to: Nullable(Type.Integer()),
  mentioned_user_ids: Type.Array(Type.String()),
  status: Type.String(),
  created_at: Timestamp,
  modified_at: Nullable(Type.String()),
  profiles: Nullable(Profile),
});
export type Comment = Static<typeof Comment>;
