import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { TaxRate, TaxRateCreate, TaxRateQuery, TaxRateUpdate } from './tax-rates.schemas.ts';
import { taxRatesService } from './tax-rates.service.ts';

export async function taxRatesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/tax-rates',
    resource: 'Tax rate',
    scope: 'tax-rates',
    schemas: { query: TaxRateQuery, create: TaxRateCreate, update: TaxRateUpdate, item: TaxRate, detail: TaxRate },
    service: taxRatesService(ctx),
  });
}
