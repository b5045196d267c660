import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { HomeQuery, HomeResponse } from './home.schemas.ts';
import { HOME_READ_SCOPES, homeSummary } from './home.service.ts';

export async function homeRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/home',
    {
      // Any one read scope lets the key in; each section then needs its own (A2, like the deletions feed).
      config: { scope: HOME_READ_SCOPES },
      schema: {
        tags: ['Home'],
        operationId: 'getHome',
        summary: 'The office dashboard: counts, payments per month, recent activity',
        description:
          'New requests, quotes awaiting response, completed jobs without an invoice, overdue invoices with their amount due, payments received per month over the last 12 months (workspace timezone) and the latest domain events. A section whose resource the key may not read (`<x>:read`) is null; activity lists only readable resources.',
        querystring: HomeQuery,
        response: { 200: HomeResponse },
      },
    },
    async (req) => ({ success: true as const, data: await homeSummary(db, req.auth, req.query) }),
  );
}
