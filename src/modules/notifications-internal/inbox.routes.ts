import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { AnyJson, Id, Nullable, Ok, Pagination, Timestamp } from '../../kernel/schemas.ts';
import { inboxOf, markInboxRead } from './internal-notifications.ts';

// SPEC "Internal notifications" (D22) read by the person they were stored for: the
// app's "Notifications" button, or an integration acting as its key's member.

const SELF_NOTE = "The caller's own notifications: a session's member, or the member a key belongs to. Scope: none.";

export const InboxNotification = Type.Object(
  {
    id: Id,
    name: Type.String({ description: '`comments_mention`, `comments_reply`, `comments_new`, `quotes_awaiting_response`, `quote_customer_response`, `invoices_sent`, `appointments_soon`, `email_allowance_used_up`, ...' }),
    module_type: Nullable(Type.String({ description: 'What it is about: `quote`, `job`, `invoice`, `request`, `event`, ...; null for none' })),
    module_id: Nullable(Id),
    data: AnyJson,
    created_at: Timestamp,
    read_at: Nullable(Timestamp),
  },
);

const InboxQuery = Type.Object({
  unread: Type.Optional(Type.Boolean({ description: 'Only notifications not yet read' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
});

const MarkReadBody = Type.Object({
  ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 100, description: 'The notifications to mark read; omitted: every unread one' })),
});

export async function inboxRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/me/notifications',
    {
      config: { scope: null },
      schema: {
        operationId: 'listMyNotifications',
        tags: ['Auth'],
        summary: 'My notifications, newest first, with how many are unread',
        description: `${SELF_NOTE} \`meta.unread_count\` counts every unread one, whatever the page or filter.`,
        querystring: InboxQuery,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: Type.Array(InboxNotification), pagination: Pagination, meta: Type.Object({ unread_count: Type.Integer() }) }),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await inboxOf(db, req.auth, req.query)) }),
  );
  app.post(
    '/me/notifications/read',
    {
      // Changes existing rows, creates none: 200 (D3's 201 is for creates), replays included.
      config: { scope: null, successStatus: 200 },
      schema: {
        operationId: 'markMyNotificationsRead',
        tags: ['Auth'],
        summary: 'Mark my notifications read (some, or all)',
        description: `${SELF_NOTE} Ids that are not the caller's, or already read, are passed over. Answers how many were marked and how many remain unread.`,
        body: Type.Optional(MarkReadBody),
        response: { 200: Ok(Type.Object({ marked: Type.Integer(), unread_count: Type.Integer() })) },
      },
    },
    async (req) => ({ success: true as const, data: await transact(db, req.auth, (trx) => markInboxRead(trx, req.auth, req.body?.ids)) }),
  );
}
