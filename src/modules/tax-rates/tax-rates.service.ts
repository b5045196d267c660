import { now } from '../../db/json.ts';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import { listTaxRates, taxRates } from './tax-rates.repo.ts';
import type { TaxRate, TaxRateCreate, TaxRateQuery, TaxRateUpdate } from './tax-rates.schemas.ts';

export function taxRatesService({ db }: AppContext): CrudService<TaxRateQuery, TaxRateCreate, TaxRateUpdate, TaxRate, TaxRate> {
  const get = async (workspaceId: number, id: number, trx = db): Promise<TaxRate> => {
    const row = await taxRates.find(trx, workspaceId, id);
    if (!row) throw notFound('Tax rate');
    return row;
  };
  return {
    list: (auth, query) => listTaxRates(db, auth.workspaceId, query),
    get: (auth, id) => get(auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        const at = now();
        const id = await taxRates.insert(trx, { description: null, ...body, workspace_id: auth.workspaceId, created_at: at, updated_at: at });
        return get(auth.workspaceId, id, trx);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        // Documents keep the rate they copied (D8 copies, it does not link the value).
        if (!(await taxRates.update(trx, auth.workspaceId, id, { ...body, updated_at: now() }))) throw notFound('Tax rate');
        return get(auth.workspaceId, id, trx);
      }),
    remove: (auth, id) =>
      transact(db, auth, async (trx) => {
        // D12: permanent; documents that named it keep their tax_rate, their tax_rate_id becomes null.
        if (!(await taxRates.remove(trx, auth.workspaceId, id))) throw notFound('Tax rate');
      }),
  };
}
