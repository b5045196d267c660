import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { QuoteCreate, QuoteDetail, QuoteListItem, QuoteQuery, QuoteStatusBody, QuoteUpdate } from './quotes.schemas.ts';
import { createQuoteFromRequest, quotesService, setQuoteStatus } from './quotes.service.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';

export async function quotesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/quotes',
    resource: 'Quote',
    scope: 'quotes',
    schemas: { query: QuoteQuery, create: QuoteCreate, update: QuoteUpdate, item: QuoteListItem, detail: QuoteDetail },
    service: quotesService(ctx),
  });
  statusRoute(app, {
    path: '/quotes',
    resource: 'Quote',
    scope: 'quotes',
    body: QuoteStatusBody,
    response: QuoteDetail,
    handler: (auth, id, body) =>
      transact(ctx.db, auth, (trx) => setQuoteStatus(trx, auth.workspaceId, auth.userId, id, body.status, body.comment ?? null)),
  });
  // E6: no body; D3: 201.
  app.post(
    '/requests/:id/create-quote',
    {
      config: { scope: 'quotes:write', notFound: { id: 'Request' } },
      schema: { operationId: 'createQuoteFromRequest', tags: ['Quote'], summary: 'Create a draft quote from a request', params: IdParams, response: { 201: Ok(QuoteDetail) } },
    },
    async (req, reply) => {
      const { id } = req.params as { id: number };
      const data = await transact(ctx.db, req.auth, (trx) => createQuoteFromRequest(trx, req.auth.workspaceId, req.auth.userId, id));
      return reply.code(201).send({ success: true, data });
    },
  );
}
