import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { Ok } from '../../kernel/schemas.ts';
import { NotificationBody, NotificationQueued } from './notifications.schemas.ts';
import { sendNotification } from './notifications.service.ts';

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
}
