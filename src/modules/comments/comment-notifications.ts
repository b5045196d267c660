import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { notifyUsers } from '../notifications-internal/internal-notifications.ts';
import { type ModuleType, parentCreator } from '../uploads/parents.ts';

// SPEC "Internal notifications", the three comment rules.

/** Only comments on these parents notify; contacts, events and timesheets never do. */
const NOTIFYING: ReadonlySet<ModuleType> = new Set(['quote', 'job', 'invoice', 'request']);

export interface PostedComment {
  id: number;
  related_type: ModuleType;
  related_id: number;
  comment: string;
  author_id: string;
  reply_to: number | null;
  mentioned_user_ids: string[];
}

/**
 * comments_mention to each mentioned user, comments_reply to the author of the
 * comment replied to, comments_new to the parent's creator. The author is never
 * notified of their own comment, and a user notified by mention gets nothing else.
 */
export async function notifyComment(trx: Kysely<DB>, workspaceId: number, c: PostedComment, repliedToAuthor: string | null): Promise<void> {
  if (!NOTIFYING.has(c.related_type)) return;
  const module = { type: c.related_type, id: c.related_id };
  const data = { comment_id: c.id, author_id: c.author_id, reply_to: c.reply_to, excerpt: c.comment.slice(0, 200) };
  const others = (users: (string | null)[]) => users.filter((u): u is string => Boolean(u) && u !== c.author_id);

  const mentioned = new Set(await notifyUsers(trx, workspaceId, 'comments_mention', others(c.mentioned_user_ids), module, data));
  const notMentioned = (users: (string | null)[]) => others(users).filter((u) => !mentioned.has(u));
  if (c.reply_to !== null) await notifyUsers(trx, workspaceId, 'comments_reply', notMentioned([repliedToAuthor]), module, data);
  const creator = await parentCreator(trx, workspaceId, c.related_type, c.related_id);
  await notifyUsers(trx, workspaceId, 'comments_new', notMentioned([creator]), module, data);
}
