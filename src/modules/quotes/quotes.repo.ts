import { type Kysely, sql } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { dialectOf, jsonArrayFrom, jsonObjectFrom, parseJson } from '../../db/json-helpers.ts';
import { contactRefJson, documentRefJson, propertyRefJson, userRefJson } from '../../db/related.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Quote, QuoteDetail, QuoteQuery } from './quotes.schemas.ts';

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

/**
 * "Get quote: expanded with related data" in one statement: the row, its
 * related records, its job (D14) and its status changes as JSON subqueries.
 */
export async function findQuoteDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<QuoteDetail | undefined> {
  const d = dialectOf(db);
  const row = await db
    .selectFrom('quotes')
    .selectAll('quotes')
    .select((eb) => [
      contactRefJson(eb, d, 'quotes.contact_id').as('contact'),
      propertyRefJson(eb, d, 'quotes.property_id').as('property'),
      documentRefJson(eb, d, 'quotes.request_id').as('request'),
      userRefJson(eb, d, 'quotes.salesperson_id').as('salesperson'),
      jsonObjectFrom(
        d,
        eb
          .selectFrom('jobs')
          .select(['jobs.id', 'jobs.number', 'jobs.name', 'jobs.status'])
          .whereRef('jobs.workspace_id', '=', 'quotes.workspace_id')
          .whereRef('jobs.quote_id', '=', 'quotes.id'),
      ).as('job'),
      jsonArrayFrom(
        d,
        eb
          .selectFrom('quote_status_changes as sc')
          .select(['sc.status', 'sc.comment', 'sc.user_id', 'sc.created_at'])
          .whereRef('sc.workspace_id', '=', 'quotes.workspace_id')
          .whereRef('sc.quote_id', '=', 'quotes.id')
          .orderBy('sc.id'),
      ).as('status_changes'),
    ])
    .where('quotes.workspace_id', '=', workspaceId)
    .where('quotes.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { contact, property, request, salesperson, job, status_changes, ...quote } = row;
  return {
    ...quoteOf(quote),
    contact: parseJson(contact),
    property: parseJson(property),
    request: parseJson(request),
    salesperson: parseJson(salesperson),
    job: parseJson(job),
    status_changes: parseJson(status_changes) ?? [],
  };
}
