import { type Kysely, sql } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Quote, QuoteQuery } from './quotes.schemas.ts';

export const quoteCodec = rowCodec<Quote>({ json: ['line_items', 'custom_fields'] });
export const quotes = tenantRows('quotes');

/** The API record of a row. */
export function quoteOf(row: object): Quote {
  const { created_by: _, ...rest } = row as Record<string, unknown>;
  return quoteCodec.decode(rest);
}

const listSpec: ListSpec = {
  id: 'id',
  sort: Object.fromEntries(['id', 'number', 'name', 'status', 'total', 'date', 'expire_on', 'created_at', 'updated_at'].map((f) => [f, f])),
  search: ['name', sql`cast(number as text)`],
};

export function listQuotes(db: Kysely<DB>, workspaceId: number, q: QuoteQuery) {
  let qb = db
    .selectFrom('quotes')
    .select(['id', 'number', 'name', 'status', 'contact_id', 'total', 'date', 'expire_on', 'created_at'])
    .where('workspace_id', '=', workspaceId);
  if (q.contact_id) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.status) qb = qb.where('status', 'in', csv(q.status));
  if (q.exclude_statuses) qb = qb.where('status', 'not in', csv(q.exclude_statuses));
  return paginate(qb, q, listSpec);
}

export async function insertStatusChange(
  db: Kysely<DB>,
  workspaceId: number,
  change: { quote_id: number; status: string; comment: string | null; user_id: string | null; created_at: string },
) {
  await db
    .insertInto('quote_status_changes')
    .values({ ...change, workspace_id: workspaceId })
    .execute();
}

export function listStatusChanges(db: Kysely<DB>, workspaceId: number, quoteId: number) {
  return db
    .selectFrom('quote_status_changes')
    .select(['status', 'comment', 'user_id', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('quote_id', '=', quoteId)
    .orderBy('id')
    .execute();
}
