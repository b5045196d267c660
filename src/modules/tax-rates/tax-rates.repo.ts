import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { TaxRateQuery } from './tax-rates.schemas.ts';

export const taxRates = tenantRows('tax_rates');

const listSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', name: 'name', rate: 'rate', created_at: 'created_at', modified_at: 'updated_at', updated_at: 'updated_at' },
  search: ['name', 'description'],
};

const list = listOf(listSpec, (db, f: { ws: number }) => db.selectFrom('tax_rates').selectAll().where('workspace_id', '=', f.ws));

export function listTaxRates(db: Kysely<DB>, workspaceId: number, q: TaxRateQuery) {
  return list(db, { ws: workspaceId }, q);
}
