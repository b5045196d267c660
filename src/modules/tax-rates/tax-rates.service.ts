import { now } from '../../db/json.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { listTaxRates, taxRates } from './tax-rates.repo.ts';
import type { TaxRate, TaxRateCreate, TaxRateQuery, TaxRateUpdate } from './tax-rates.schemas.ts';

export function taxRatesService({ db }: AppContext): CrudService<TaxRateQuery, TaxRateCreate, TaxRateUpdate, TaxRate, TaxRate> {
  const get = async (workspaceId: number, id: number): Promise<TaxRate> => {
    const row = await taxRates.find(db, workspaceId, id);
    if (!row) throw notFound('Tax rate');
    return row;
  };
  return {
    list: (auth, query) => listTaxRates(db, auth.workspaceId, query),
    get: (auth, id) => get(auth.workspaceId, id),
    create: async (auth, body) => {
      const at = now();
      const id = await taxRates.insert(db, { description: null, ...body, workspace_id: auth.workspaceId, created_at: at, updated_at: at });
      return get(auth.workspaceId, id);
    },
    update: async (auth, id, body) => {
      // Documents keep the rate they copied (D8 copies, it does not link the value).
      if (!(await taxRates.update(db, auth.workspaceId, id, { ...body, updated_at: now() }))) throw notFound('Tax rate');
      return get(auth.workspaceId, id);
    },
    remove: async (auth, id) => {
      // D12: permanent; documents that named it keep their tax_rate, their tax_rate_id becomes null.
      if (!(await taxRates.remove(db, auth.workspaceId, id))) throw notFound('Tax rate');
    },
  };
}
