import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { Service, ServiceCreate, ServiceQuery, ServiceUpdate } from './services.schemas.ts';
import { servicesService } from './services.service.ts';

export async function servicesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/services',
    resource: 'Service',
    scope: 'services',
    schemas: { query: ServiceQuery, create: ServiceCreate, update: ServiceUpdate, item: Service, detail: Service },
    service: servicesService(ctx),
  });
}
