import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { InvoiceCreate, InvoiceDetail, InvoiceListItem, InvoiceQuery, InvoiceStatusBody, InvoiceUpdate } from './invoices.schemas.ts';
import { invoicesService, setInvoiceStatus } from './invoices.service.ts';

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
}
