import type { Kysely } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Service, ServiceQuery } from './services.schemas.ts';

export const serviceCodec = tableCodec<Service>()('services', { bool: ['taxable'] });
export const services = tenantRows('services');

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'name', 'price', 'sku', 'type', 'created_at', 'updated_at']),
  search: ['name', 'description'], // SPEC: name and description
};

const list = listOf(listSpec, (db, f: { ws: number; id_in?: number[] }) => {
  let qb = db.selectFrom('services').selectAll().where('workspace_id', '=', f.ws);
  if (f.id_in) qb = qb.where('id', 'in', f.id_in);
  return qb;
});

export async function listServices(db: Kysely<DB>, workspaceId: number, q: ServiceQuery) {
  const page = await list(db, { ws: workspaceId, id_in: q.id_in ? csv(q.id_in).map(Number) : undefined }, q);
  return { rows: page.rows.map((r) => serviceCodec.decode(r)), pagination: page.pagination };
}
