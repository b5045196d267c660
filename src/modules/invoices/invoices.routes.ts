import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceStatusBody, InvoiceUpdate } from './invoices.schemas.ts';
import { invoicesService, setInvoiceStatus } from './invoices.service.ts';
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
    handler: (auth, id, body) => ctx.db.transaction().execute((trx) => setInvoiceStatus(trx, auth.workspaceId, id, body.status)),
  });
  await paymentsRoutes(app, ctx); // E3
}
