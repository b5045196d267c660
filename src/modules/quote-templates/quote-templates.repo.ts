import type { Kysely } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, QuoteTemplatesTable } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { userRefs } from '../../db/references.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { QuoteTemplate, TemplateQuery } from './quote-templates.schemas.ts';

type Stored = Omit<QuoteTemplate, 'tax_rate_obj' | 'created_by'> & { created_by: string | null };
const codec = tableCodec<Stored>()('quote_templates', { json: ['line_items'] });
export const templateCodec = codec;
export const templates = tenantRows('quote_templates');

const listSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', template_name: 'template_name', total: 'total', created_at: 'created_at', modified_at: 'updated_at', updated_at: 'updated_at' },
  search: ['template_name'],
};

/** `tax_rate_obj` and `created_by` for a page of templates: one query each, none per row. */
export async function expand(db: Kysely<DB>, workspaceId: number, rows: (Omit<QuoteTemplatesTable, 'id'> & { id: number })[]): Promise<QuoteTemplate[]> {
  const stored = rows.map((r) => codec.decode(r));
  const rateIds = [...new Set(stored.map((t) => t.tax_rate_id).filter((id): id is number => id !== null))];
  const rates = new Map<number, { id: number; name: string; rate: number }>();
  if (rateIds.length) {
    const found = await db.selectFrom('tax_rates').select(['id', 'name', 'rate']).where('workspace_id', '=', workspaceId).where('id', 'in', rateIds).execute();
    for (const r of found) rates.set(r.id, r);
  }
  const users = await userRefs(
    db,
    workspaceId,
    stored.map((t) => t.created_by),
  );
  return stored.map((t) => {
    const user = t.created_by ? users.get(t.created_by) : undefined;
    return {
      ...t,
      tax_rate_obj: (t.tax_rate_id !== null && rates.get(t.tax_rate_id)) || null,
      created_by: user ? { id: user.id, first_name: user.first_name, last_name: user.last_name } : null,
    };
  });
}

const list = listOf(listSpec, (db, f: { ws: number }) => db.selectFrom('quote_templates').selectAll().where('workspace_id', '=', f.ws));

export async function listTemplates(db: Kysely<DB>, workspaceId: number, q: TemplateQuery) {
  const page = await list(db, { ws: workspaceId }, q);
  return { rows: await expand(db, workspaceId, page.rows), pagination: page.pagination };
}
