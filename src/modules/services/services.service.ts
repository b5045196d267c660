import { now } from '../../db/json.ts';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { listServices, serviceCodec, services } from './services.repo.ts';
import type { Service, ServiceCreate, ServiceQuery, ServiceUpdate } from './services.schemas.ts';

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
      transact(db, auth, async (trx) => {
        const at = now();
        const values = serviceCodec.encode({ description: null, price: 0, sku: null, type: 'service', taxable: true, ...body });
        const id = await services.insert(trx, { ...values, workspace_id: auth.workspaceId, created_at: at, updated_at: at });
        return get(auth.workspaceId, id, trx);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        if (!(await services.update(trx, auth.workspaceId, id, { ...serviceCodec.encode(body), updated_at: now() }))) throw notFound('Service');
        return get(auth.workspaceId, id, trx);
      }),
    remove: (auth, id) =>
      transact(db, auth, async (trx) => {
        // D12: permanent; line items copied from it are their own.
        if (!(await services.remove(trx, auth.workspaceId, id))) throw notFound('Service');
      }),
  };
}
