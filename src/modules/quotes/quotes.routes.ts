import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { QuoteCreate, QuoteDetail, QuoteListItem, QuoteQuery, QuoteStatusBody, QuoteUpdate } from './quotes.schemas.ts';
import { quotesService, setQuoteStatus } from './quotes.service.ts';

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
}
