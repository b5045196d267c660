import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { now } from '../../db/json.ts';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { listServices, serviceCodec, services } from './services.repo.ts';
import type { Service, ServiceCreate, ServiceQuery, ServiceUpdate } from './services.schemas.ts';

/** Creates a service inside the caller's transaction (the API, E28's rows); returns its id. */
export function createServiceIn(trx: Kysely<DB>, workspaceId: number, body: ServiceCreate): Promise<number> {
  const at = now();
  const values = serviceCodec.encode({ description: null, price: 0, sku: null, type: 'service', taxable: true, ...body });
  return services.insert(trx, { ...values, workspace_id: workspaceId, created_at: at, updated_at: at });
}

/** Updates a service inside the caller's transaction; false when it is not the workspace's. */
export const updateServiceIn = (trx: Kysely<DB>, workspaceId: number, id: number, body: ServiceUpdate): Promise<boolean> =>
  services.update(trx, workspaceId, id, { ...serviceCodec.encode(body), updated_at: now() });

export function servicesService({ db }: AppContext): CrudService<ServiceQuery, ServiceCreate, ServiceUpdate, Service, Service> {
  const get = async (workspaceId: number, id: number, trx = db): Promise<Service> => {
    const row = await services.find(trx, workspaceId, id);
    if (!row) throw notFound('Service');
    return serviceCodec.decode(row);
  };
  return {
    list: (auth, query) => listServices(db, auth.workspaceId, query),
    get: (auth, id) => get(auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => get(auth.workspaceId, await createServiceIn(trx, auth.workspaceId, body), trx)),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        if (!(await updateServiceIn(trx, auth.workspaceId, id, body))) throw notFound('Service');
        return get(auth.workspaceId, id, trx);
      }),
    remove: (auth, id) =>
      transact(db, auth, async (trx) => {
        // D12: permanent; line items copied from it are their own.
        if (!(await services.remove(trx, auth.workspaceId, id))) throw notFound('Service');
      }),
  };
}
