import { type Kysely, sql } from 'kysely';
import { rowCodec } from '../../db/codec.ts';
import type { DB } from '../../db/schema.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import { dialectOf, parseJson } from '../../db/json-helpers.ts';
import { contactRefJson, documentRefJson, propertyRefJson, userRefJson } from '../../db/related.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Job, JobDetail, JobQuery } from './jobs.schemas.ts';

export const jobCodec = rowCodec<Job>({ json: ['line_items', 'expenses', 'custom_fields'] });
export const jobs = tenantRows('jobs');

/** The API record of a row. */
export function jobOf(row: object): Job {
  const { created_by: _, ...rest } = row as Record<string, unknown>;
  return jobCodec.decode(rest);
}

const listSpec: ListSpec = {
  id: 'id',
  sort: Object.fromEntries(['id', 'number', 'name', 'status', 'type', 'total', 'created_at', 'updated_at'].map((f) => [f, f])),
  search: ['name', sql`cast(number as text)`],
};

export function listJobs(db: Kysely<DB>, workspaceId: number, q: JobQuery) {
  let qb = db
    .selectFrom('jobs')
    .select(['id', 'number', 'name', 'status', 'type', 'contact_id', 'total', 'created_at'])
    .where('workspace_id', '=', workspaceId);
  if (q.contact_id) qb = qb.where('contact_id', '=', q.contact_id);
  if (q.quote_id) qb = qb.where('quote_id', '=', q.quote_id);
  if (q.status) qb = qb.where('status', 'in', csv(q.status));
  return paginate(qb, q, listSpec);
}

/** D14: the job a quote already yielded, if any. */
export async function jobOfQuote(db: Kysely<DB>, workspaceId: number, quoteId: number) {
  return db.selectFrom('jobs').select('id').where('workspace_id', '=', workspaceId).where('quote_id', '=', quoteId).executeTakeFirst();
}

/** "Get job: expanded with related data" in one statement (related records as JSON subqueries). */
export async function findJobDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<JobDetail | undefined> {
  const d = dialectOf(db);
  const row = await db
    .selectFrom('jobs')
    .selectAll('jobs')
    .select((eb) => [
      contactRefJson(eb, d, 'jobs.contact_id').as('contact'),
      propertyRefJson(eb, d, 'jobs.property_id').as('property'),
      documentRefJson(eb, d, 'jobs.request_id').as('request'),
      documentRefJson(eb, d, 'jobs.quote_id').as('quote'),
      userRefJson(eb, d, 'jobs.salesperson_id').as('salesperson'),
    ])
    .where('jobs.workspace_id', '=', workspaceId)
    .where('jobs.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { contact, property, request, quote, salesperson, ...job } = row;
  return {
    ...jobOf(job),
    contact: parseJson(contact),
    property: parseJson(property),
    request: parseJson(request),
    quote: parseJson(quote),
    salesperson: parseJson(salesperson),
  };
}
