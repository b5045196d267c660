import { now } from '../../db/json.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { listServices, serviceCodec, services } from './services.repo.ts';
import type { Service, ServiceCreate, ServiceQuery, ServiceUpdate } from './services.schemas.ts';

export function servicesService({ db }: AppContext): CrudService<ServiceQuery, ServiceCreate, ServiceUpdate, Service, Service> {
  const get = async (workspaceId: number, id: number): Promise<Service> => {
    const row = await services.find(db, workspaceId, id);
    if (!row) throw notFound('Service');
    return serviceCodec.decode(row);
  };
  return {
    list: (auth, query) => listServices(db, auth.workspaceId, query),
    get: (auth, id) => get(auth.workspaceId, id),
    create: async (auth, body) => {
      const at = now();
      const values = serviceCodec.encode({ description: null, price: 0, sku: null, type: 'service', taxable: true, ...body });
      const id = await services.insert(db, { ...values, workspace_id: auth.workspaceId, created_at: at, updated_at: at });
      return get(auth.workspaceId, id);
    },
    update: async (auth, id, body) => {
      if (!(await services.update(db, auth.workspaceId, id, { ...serviceCodec.encode(body), updated_at: now() }))) throw notFound('Service');
      return get(auth.workspaceId, id);
    },
    remove: async (auth, id) => {
      // D12: permanent; line items copied from it are their own.
      if (!(await services.remove(db, auth.workspaceId, id))) throw notFound('Service');
    },
  };
}
