import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import type { AppContext } from '../../http/context.ts';
import { Id, Nullable, Ok, Page, Timestamp } from '../../kernel/schemas.ts';
import { CHANNELS, listMessagePage, MESSAGE_SORT, MESSAGE_STATUSES } from '../../outbox/messages.ts';
import { NotificationBody, NotificationQueued } from './notifications.schemas.ts';
import { sendNotification } from './notifications.service.ts';
import { NotificationSetting, NotificationSettingBody, Preview, PreviewBody } from './settings.schemas.ts';
import { notificationSettings, previewNotification, updateNotificationSetting } from './settings.service.ts';
import { NOTIFICATION_TYPES } from './templates.ts';

/** The customer message log (A5 "Messages"): what `fieldwork messages` shows. */
const Message = Type.Object({
  id: Id,
  channel: Type.String(),
  type: Type.String(),
  to: Type.String(),
  subject: Nullable(Type.String()),
  status: Type.String({ description: `one of: ${MESSAGE_STATUSES.join(', ')}` }),
  created_at: Timestamp,
  sent_at: Nullable(Timestamp),
  // The attempts: how many were made, when the next is due, and why the last failed or it was not sent.
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  error: Nullable(Type.String()),
  module_type: Type.String(),
  module_id: Id,
  contact_id: Nullable(Id),
});
const MessageQuery = listQuery(MESSAGE_SORT, {
  channel: Type.Optional(Type.Enum([...CHANNELS])),
  status: Type.Optional(Type.Enum([...MESSAGE_STATUSES])),
  // Customer messages, and the team's own emails (invites, password resets).
  type: Type.Optional(Type.Enum([...NOTIFICATION_TYPES, 'team_invite', 'password_reset'])),
});

export async function notificationsRoutes(fastify: FastifyInstance, { db, config }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/notifications',
    {
      config: { scope: 'notifications:write' },
      schema: {
        tags: ['Notification'],
        summary: 'Email (and text, where allowed) a quote, an invoice or an appointment reminder to the customer',
        body: NotificationBody,
        response: { 201: Ok(NotificationQueued) },
      },
    },
    async (req, reply) => reply.code(201).send({ success: true as const, data: await sendNotification(db, req.auth, req.body, config) }),
  );

  app.get(
    '/messages',
    { config: { scope: 'notifications:read' }, schema: { tags: ['Message'], summary: 'List customer emails and SMS, newest first, with their attempts', querystring: MessageQuery, response: { 200: Page(Message) } } },
    async (req) => {
      const { rows, pagination } = await listMessagePage(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  const tags = ['Notification settings'];
  app.get(
    '/notification-settings',
    { config: { scope: 'workspace:read' }, schema: { tags, summary: 'Which customer emails and SMS are sent, and their templates', response: { 200: Ok(Type.Array(NotificationSetting)) } } },
    async (req) => ({ success: true as const, data: await notificationSettings(db, req.auth.workspaceId) }),
  );
  app.put(
    '/notification-settings',
    { config: { scope: 'workspace:write' }, schema: { tags, summary: "Change one type's switches and templates", body: NotificationSettingBody, response: { 200: Ok(NotificationSetting) } } },
    async (req) => ({ success: true as const, data: await updateNotificationSetting(db, req.auth, req.body) }),
  );
  app.post(
    '/notification-settings/preview',
    {
      config: { scope: 'workspace:read', successStatus: 200 },
      schema: { tags, summary: 'Render a type (saved or draft templates) against a sample document; sends nothing', body: PreviewBody, response: { 200: Ok(Preview) } },
    },
    async (req) => ({ success: true as const, data: await previewNotification(db, req.auth.workspaceId, req.body, config.publicUrl) }),
  );
}
