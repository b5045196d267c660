import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { Request, RequestCreate, RequestListItem, RequestQuery, RequestStatusBody, RequestUpdate } from './requests.schemas.ts';
import { requestsService, updateRequest } from './requests.service.ts';

export async function requestsRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/requests',
    resource: 'Request',
    scope: 'requests',
    schemas: { query: RequestQuery, create: RequestCreate, update: RequestUpdate, item: RequestListItem, detail: Request },
    service: requestsService(ctx),
  });
  statusRoute(app, {
    path: '/requests',
    resource: 'Request',
    scope: 'requests',
    body: RequestStatusBody,
    response: Request,
    handler: (auth, id, body) => transact(ctx.db, auth, (trx) => updateRequest(trx, auth.workspaceId, id, { status: body.status })),
  });
}
