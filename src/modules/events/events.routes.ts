import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { Event, EventCreate, EventDetail, EventQuery, EventStatusBody, EventUpdate } from './events.schemas.ts';
import { eventsService } from './events.service.ts';

export async function eventsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const service = eventsService(ctx);
  crudRoutes(fastify, {
    path: '/events',
    resource: 'Event',
    scope: 'events',
    schemas: { query: EventQuery, create: EventCreate, update: EventUpdate, item: Event, detail: EventDetail },
    service,
  });

  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.put(
    '/events/:id/status',
    {
      config: { scope: 'events:write', notFound: { id: 'Event' } },
      schema: { tags: ['Event'], summary: "Set an event's status", params: IdParams, body: EventStatusBody, response: { 200: Ok(EventDetail) } },
    },
    async (req) => ({ success: true as const, data: await service.setStatus(req.auth, req.params.id, req.body) }),
  );
}
