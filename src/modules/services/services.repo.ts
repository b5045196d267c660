import type { Kysely } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate, sortByName } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Service, ServiceQuery } from './services.schemas.ts';

export const serviceCodec = tableCodec<Service>()('services', { bool: ['taxable'] });
export const services = tenantRows('services');

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'name', 'price', 'sku', 'type', 'created_at', 'updated_at']),
  search: ['name', 'description'], // SPEC: name and description
};

export async function listServices(db: Kysely<DB>, workspaceId: number, q: ServiceQuery) {
  let qb = db.selectFrom('services').selectAll().where('workspace_id', '=', workspaceId);
  if (q.id_in) qb = qb.where('id', 'in', csv(q.id_in).map(Number));
  const page = await paginate(qb, q, listSpec);
  return { rows: page.rows.map((r) => serviceCodec.decode(r)), pagination: page.pagination };
}
