import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceStatusBody, InvoiceUpdate } from './invoices.schemas.ts';
import { createInvoiceFromJob, invoicesService, setInvoiceStatus } from './invoices.service.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { paymentsRoutes } from './payments.routes.ts';

export async function invoicesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/invoices',
    resource: 'Invoice',
    scope: 'invoices',
    schemas: { query: InvoiceQuery, create: InvoiceCreate, update: InvoiceUpdate, item: InvoiceListItem, detail: InvoiceDetail },
    service: invoicesService(ctx),
  });
  statusRoute(app, {
    path: '/invoices',
    resource: 'Invoice',
    scope: 'invoices',
    body: InvoiceStatusBody,
    response: InvoiceDetail,
    handler: (auth, id, body) => transact(ctx.db, auth, (trx) => setInvoiceStatus(trx, auth.workspaceId, id, body.status)),
  });
  await paymentsRoutes(app, ctx); // E3
  // E6: no body; D3: 201.
  app.post(
    '/jobs/:id/create-invoice',
    {
      config: { scope: 'invoices:write', notFound: { id: 'Job' } },
      schema: { operationId: 'createInvoiceFromJob', tags: ['Invoice'], summary: 'Create a draft invoice from a job', params: IdParams, response: { 201: Ok(InvoiceDetail) } },
    },
    async (req, reply) => {
      const { id } = req.params as { id: number };
      const data = await transact(ctx.db, req.auth, (trx) => createInvoiceFromJob(trx, req.auth.workspaceId, req.auth.userId, id));
      return reply.code(201).send({ success: true, data });
    },
  );
}
