import type { Kysely } from 'kysely';
import { applyPricing, type Pricing, type PricingInput } from '../domain/line-items.ts';
import { ValidationError } from '../kernel/errors.ts';
import type { DB } from './schema.ts';

/** applyPricing() with the tax preset the body names read from the workspace (D8, D11: unknown is 400). */
export async function resolvePricing(db: Kysely<DB>, workspaceId: number, current: Pricing | null, input: PricingInput): Promise<Pricing> {
  let presetRate: number | undefined;
  if (input.tax_rate_id !== undefined && input.tax_rate_id !== null) {
    const preset = await db
      .selectFrom('tax_rates')
      .select('rate')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', input.tax_rate_id)
      .executeTakeFirst();
    if (!preset) throw new ValidationError([{ path: ['tax_rate_id'], message: `tax_rate_id ${input.tax_rate_id} does not exist` }]);
    presetRate = Number(preset.rate);
  }
  return applyPricing(current, input, presetRate);
}
