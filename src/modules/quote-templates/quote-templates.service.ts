import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {omitPricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound } from '../../kernel/errors.ts';
import type { QuoteDetail } from '../quotes/quotes.schemas.ts';
import { createQuote } from '../quotes/quotes.service.ts';
import { expand, listTemplates, templateCodec, templates } from './quote-templates.repo.ts';
import type { QuoteTemplate, TemplateCreate, TemplateQuery, TemplateUpdate } from './quote-templates.schemas.ts';

async function findTemplate(db: Kysely<DB>, workspaceId: number, id: number) {
  const row = await templates.find(db, workspaceId, id);
  if (!row) throw notFound('Quote template');
  return row;
}

export async function getTemplate(db: Kysely<DB>, workspaceId: number, id: number): Promise<QuoteTemplate> {
  const [template] = await expand(db, workspaceId, [await findTemplate(db, workspaceId, id)]);
  return template;
}

/**
 * `POST /quote-templates/:id/create-quote`: a draft quote copying the
 * template's name, line items (new ids), pricing, total, message and payment
 * instructions, with `template_id` and a number. A copy: later template edits
 * and deletes leave it alone.
 */
export async function createQuoteFromTemplate(trx: Kysely<DB>, workspaceId: number, userId: string | null, templateId: number): Promise<QuoteDetail> {
  const t = templateCodec.decode(await findTemplate(trx, workspaceId, templateId));
  return createQuote(trx, workspaceId, userId, {
    template_id: t.id,
    name: t.name,
    message: t.message,
    payment_instructions: t.payment_instructions,
    ...pricingOf(t),
    line_items: t.line_items.map(({ id: _id, _type, ...item }) => item),
  });
}

export function templatesService({ db }: AppContext): CrudService<TemplateQuery, TemplateCreate, TemplateUpdate, QuoteTemplate, QuoteTemplate> {
  return {
    list: (auth, query) => listTemplates(db, auth.workspaceId, query),
    get: (auth, id) => getTemplate(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        const pricing = await resolvePricing(trx, auth.workspaceId, null, body);
        const at = now();
        const id = await templates.insert(trx, {
          ...templateCodec.encode({ ...omitPricing(body), ...pricing }),
          workspace_id: auth.workspaceId,
          created_by: auth.userId,
          created_at: at,
          updated_at: at,
        });
        return getTemplate(trx, auth.workspaceId, id);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        const current = templateCodec.decode(await findTemplate(trx, auth.workspaceId, id));
        const pricing = await resolvePricing(trx, auth.workspaceId, pricingOf(current), body);
        await templates.update(trx, auth.workspaceId, id, { ...templateCodec.encode({ ...omitPricing(body), ...pricing }), updated_at: now() });
        return getTemplate(trx, auth.workspaceId, id);
      }),
    remove: (auth, id) =>
      transact(db, auth, async (trx) => {
        // D12: permanent; quotes made from it keep their template_id and their copy.
        if (!(await templates.remove(trx, auth.workspaceId, id))) throw notFound('Quote template');
      }),
  };
}
