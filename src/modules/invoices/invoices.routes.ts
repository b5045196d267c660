import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceStatusBody, InvoiceUpdate } from './invoices.schemas.ts';
import { createInvoiceFromJob, invoicesService, setInvoiceStatus } from './invoices.service.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { paymentsRoutes } from './payments.routes.ts';
import { carryDeposit } from './payments.service.ts';

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
      const { workspaceId, userId } = req.auth;
      // E23: the quote's deposit, paid and not carried yet, becomes the invoice's payments.
      const data = await transact(ctx.db, req.auth, async (trx) => carryDeposit(trx, workspaceId, userId, await createInvoiceFromJob(trx, workspaceId, userId, id)));
      return reply.code(201).send({ success: true, data });
    },
  );
}
