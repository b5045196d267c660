import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { inList } from '../db/id-lists.ts';
import { now } from '../db/json.ts';
import { type ListParams, type ListSpec, listOf } from '../db/list-query.ts';
import type { DB } from '../db/schema.ts';

// Customer emails and SMS (SPEC Notifications): one `messages` row each, queued
// in the caller's transaction and drained by the worker. The table is the queue
// and the log (`fieldwork messages`) at once.

export const CHANNELS = ['email', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

/** queued: waiting for the worker; sent: taken by the SMTP server or SMS provider; not_sent: never tried, `error` says why; failed: tried and given up. */
export const MESSAGE_STATUSES = ['queued', 'sent', 'not_sent', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Attempts before a message that keeps failing for a temporary reason is failed. */
export const MAX_MESSAGE_ATTEMPTS = 5;

export interface NewMessage {
  channel: Channel;
  type: string;
  module_type: string;
  module_id: number;
  contact_id: number | null;
  recipient: string;
  subject: string | null;
  body_text: string;
  body_html: string | null;
  /** Set when the message is kept in the log unsent from the start (a setting, the allowance). */
  notSent?: string;
}

/** Records a message inside the caller's transaction: it goes out only if that commits (DESIGN "Rules"). */
export async function queueMessage(trx: Kysely<DB>, workspaceId: number, m: NewMessage): Promise<number> {
  const at = now();
  const { notSent, ...fields } = m;
  const row = await trx
    .insertInto('messages')
    .values({
      ...fields,
      workspace_id: workspaceId,
      status: notSent ? 'not_sent' : 'queued',
      error: notSent ?? null,
      attempts: 0,
      next_attempt_at: notSent ? null : at,
      message_id: randomUUID(),
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The messages a worker holds, with what sending them needs: the workspace's name (the
 * email's From name, E10) and settings (its `reply_to`, its SMS provider).
 */
export async function loadMessages(db: Kysely<DB>, owner: string, ids: number[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('messages as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['m.id', 'm.workspace_id', 'm.channel', 'm.recipient', 'm.subject', 'm.body_text', 'm.body_html', 'm.attempts', 'm.message_id', 'w.name as workspace_name', 'w.settings'])
    .where('m.id', 'in', inList(ids))
    .where('m.locked_by', '=', owner)
    .where('m.status', '=', 'queued')
    .execute();
}
export type MessageToSend = Awaited<ReturnType<typeof loadMessages>>[number];

export interface MessageOutcome {
  status: Exclude<MessageStatus, 'queued'> | 'retry';
  error: string | null;
  /** With `retry`: ms before the next attempt. */
  retryInMs?: number;
}

/** Moves a held message on after one attempt; only while this worker holds it. */
export async function recordOutcome(db: Kysely<DB>, owner: string, m: { id: number; workspace_id: number; attempts: number }, o: MessageOutcome): Promise<void> {
  const at = now();
  const retry = o.status === 'retry';
  await db
    .updateTable('messages')
    .set({
      status: retry ? 'queued' : o.status,
      error: o.error,
      attempts: m.attempts + 1,
      next_attempt_at: retry ? new Date(Date.now() + (o.retryInMs ?? 0)).toISOString() : null,
      sent_at: o.status === 'sent' ? at : null,
      locked_until: null,
      locked_by: null,
      updated_at: at,
    })
    .where('id', '=', m.id)
    .where('workspace_id', '=', m.workspace_id)
    .where('locked_by', '=', owner)
    .execute();
}

/**
 * What the log shows: a queued message that has already failed an attempt is
 * `retrying` (issue 25: it read `queued` for hours), with its `next_attempt_at`.
 */
export const MESSAGE_VIEW_STATUSES = [...MESSAGE_STATUSES, 'retrying'] as const;
export type MessageViewStatus = (typeof MESSAGE_VIEW_STATUSES)[number];

export interface MessageView {
  id: number;
  channel: string;
  type: string;
  to: string;
  subject: string | null;
  status: string;
  /** When a `queued` or `retrying` message is next tried; null once it is done. */
  next_attempt_at: string | null;
  created_at: string;
  sent_at: string | null;
  error: string | null;
  attempts: number;
  module_type: string;
  module_id: number;
  contact_id: number | null;
}

/** docs/operator.md `fieldwork messages`: a workspace's customer emails and SMS, newest first. */
export async function listMessages(
  db: Kysely<DB>,
  workspaceId: number,
  filter: { channel?: Channel; status?: MessageViewStatus; limit?: number } = {},
): Promise<MessageView[]> {
  let q = db
    .selectFrom('messages')
    .select(['id', 'channel', 'type', 'recipient as to', 'subject', 'status', 'next_attempt_at', 'created_at', 'sent_at', 'error', 'attempts', 'module_type', 'module_id', 'contact_id'])
    .where('workspace_id', '=', workspaceId);
  if (filter.channel) q = q.where('channel', '=', filter.channel);
  if (filter.status === 'retrying') q = q.where('status', '=', 'queued').where('attempts', '>', 0);
  else if (filter.status === 'queued') q = q.where('status', '=', 'queued').where('attempts', '=', 0);
  else if (filter.status) q = q.where('status', '=', filter.status);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 1000)
    .execute();
  return rows.map((r) => ({ ...r, status: r.status === 'queued' && r.attempts > 0 ? 'retrying' : r.status }));
}

const messageSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', created_at: 'created_at', updated_at: 'updated_at', sent_at: 'sent_at' },
  search: ['recipient', 'subject'],
};
export const MESSAGE_SORT = ['id', 'created_at', 'sent_at'] as const;

const messageList = listOf(messageSpec, (db, f: { ws: number; channel?: Channel; status?: MessageStatus; type?: string }) => {
  let qb = db
    .selectFrom('messages')
    .select(['id', 'channel', 'type', 'recipient as to', 'subject', 'status', 'created_at', 'sent_at', 'error', 'attempts', 'next_attempt_at', 'module_type', 'module_id', 'contact_id'])
    .where('workspace_id', '=', f.ws);
  if (f.channel) qb = qb.where('channel', '=', f.channel);
  if (f.status) qb = qb.where('status', '=', f.status);
  if (f.type) qb = qb.where('type', '=', f.type);
  return qb;
});

/**
 * GET /api/v1/messages: the same log as a page (D1 order, E12 filters), each with
 * its attempts (how many, and the last one's error).
 */
export function listMessagePage(db: Kysely<DB>, workspaceId: number, q: ListParams & { channel?: Channel; status?: MessageStatus; type?: string }) {
  return messageList(db, { ws: workspaceId, channel: q.channel, status: q.status, type: q.type }, q);
}
