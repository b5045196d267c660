import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { ListQuery, ListResponse, SubscribeBody, SubscribeResponse, UnsubscribeBody, UnsubscribeResponse } from './webhooks.schemas.ts';
import { webhooksService } from './webhooks.service.ts';

/**
 * SPEC "Webhook subscription endpoints", registered at /api/webhooks (outside
 * /api/v1, not versioned): authenticated and rate limited with v1 (src/http/authenticated.ts).
 */
export async function webhooksRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = webhooksService(ctx);

  const tags = ['Webhook subscription'];
  // SPEC's envelopes here are their own; E11 stores the same answer in the write's transaction.
  const subscribed = <T>(subscription: T) => ({ success: true as const, subscription });
  const removed = () => ({ success: true as const, message: 'Subscription removed' });
  const security = [{ bearer: [] }];

  app.post(
    '/subscribe',
    {
      config: { scope: 'webhooks:write', envelope: subscribed },
      schema: { operationId: 'subscribeWebhook', tags, security, summary: 'Subscribe a URL to an event', body: SubscribeBody, response: { 201: SubscribeResponse } },
    },
    async (req, reply) => {
      return reply.code(201).send(subscribed(await service.subscribe(req.auth, req.body))); // D3
    },
  );

  app.get(
    '/list',
    {
      config: { scope: 'webhooks:read' },
      schema: { operationId: 'listWebhookSubscriptions', tags, security, summary: "List the workspace's subscriptions", querystring: ListQuery, response: { 200: ListResponse } },
    },
    async (req) => {
      const subscriptions = await service.list(req.auth, req.query);
      return { success: true as const, subscriptions, count: subscriptions.length };
    },
  );

  app.delete(
    '/unsubscribe',
    {
      config: { scope: 'webhooks:write', envelope: removed },
      schema: { operationId: 'unsubscribeWebhook', tags, security, summary: 'Remove a subscription', body: UnsubscribeBody, response: { 200: UnsubscribeResponse } },
    },
    async (req) => {
      await service.unsubscribe(req.auth, req.body.subscription_id);
      return removed();
    },
  );
}
