import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { QuoteDetail } from '../quotes/quotes.schemas.ts';
import { QuoteTemplate, TemplateCreate, TemplateQuery, TemplateUpdate } from './quote-templates.schemas.ts';
import { createQuoteFromTemplate, templatesService } from './quote-templates.service.ts';

export async function quoteTemplatesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/quote-templates',
    resource: 'Quote template',
    scope: 'quote-templates',
    schemas: { query: TemplateQuery, create: TemplateCreate, update: TemplateUpdate, item: QuoteTemplate, detail: QuoteTemplate },
    service: templatesService(ctx),
  });
  // SPEC: no body, scope quotes:write; D3: 201.
  app.post(
    '/quote-templates/:id/create-quote',
    {
      config: { scope: 'quotes:write', notFound: { id: 'Quote template' } },
      schema: { operationId: 'createQuoteFromTemplate', tags: ['Quote template'], summary: 'Create a quote from a template', params: IdParams, response: { 201: Ok(QuoteDetail) } },
    },
    async (req, reply) => {
      const { id } = req.params as { id: number };
      const data = await transact(ctx.db, req.auth, (trx) => createQuoteFromTemplate(trx, req.auth.workspaceId, req.auth.userId, id));
      return reply.code(201).send({ success: true, data });
    },
  );
}
