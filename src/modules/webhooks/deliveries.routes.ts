import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { notFound } from '../../kernel/errors.ts';
import { IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { attemptsOf, findDelivery, listDeliveryPage, redeliver } from '../../outbox/deliveries.ts';
import { Delivery, DeliveryDetail, DeliveryQuery } from './deliveries.schemas.ts';

/** A5 "Webhooks": the delivery log with its attempts, and Redeliver (the CLI's functions). */
export async function deliveriesRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Webhook delivery'];
  const read = { scope: 'webhooks:read', notFound: { id: 'Delivery' } };

  app.get(
    '/webhook-deliveries',
    { config: read, schema: { tags, summary: 'List webhook deliveries, newest first', querystring: DeliveryQuery, response: { 200: Page(Delivery) } } },
    async (req) => {
      const { rows, pagination } = await listDeliveryPage(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  app.get(
    '/webhook-deliveries/:id',
    { config: read, schema: { tags, summary: 'Get a delivery with every attempt', params: IdParams, response: { 200: Ok(DeliveryDetail) } } },
    async (req) => {
      const delivery = await findDelivery(db, req.auth.workspaceId, req.params.id);
      if (!delivery) throw notFound('Delivery');
      const attempts = await attemptsOf(db, req.auth.workspaceId, [delivery.id]);
      return { success: true as const, data: { ...delivery, attempt_log: attempts.get(delivery.id) ?? [] } };
    },
  );

  app.post(
    '/webhook-deliveries/:id/redeliver',
    {
      config: { ...read, scope: 'webhooks:write', successStatus: 200 },
      schema: { tags, summary: 'Queue one more attempt of a delivery (same webhook_id)', params: IdParams, response: { 200: Ok(Delivery) } },
    },
    async (req) => {
      const delivery = await transact(db, req.auth, async (trx) => {
        const queued = await redeliver(trx, req.params.id, req.auth.workspaceId);
        if (!queued) throw notFound('Delivery');
        return queued;
      });
      return { success: true as const, data: delivery };
    },
  );
}
