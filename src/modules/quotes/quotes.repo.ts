import { BULK_ROWS } from '../../db/database.ts';
import { type ExpressionBuilder, type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, QuotesTable } from '../../db/schema.ts';
import { locked } from '../../db/locks.ts';
import { prepared } from '../../db/prepared.ts';
import { shapedQuery } from '../../db/shaped.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf, sortByName } from '../../db/list-query.ts';
import { dialectOf, jsonArrayFrom, jsonObjectFrom, parseJson } from '../../db/json-helpers.ts';
import {
  contactNameJson,
  type ContactRef,
  withContact,
  contactRefJson,
  type DocumentRef,
  documentRefJson,
  pendingRefs,
  type PropertyRef,
  propertyRefJson,
  type UserRef,
  userRefJson,
} from '../../db/related.ts';
import { customFieldDefsJson, type FieldDef, fieldDefsOf } from '../custom-fields/custom-fields.repo.ts';
import { csv } from '../../kernel/schemas.ts';
import type { Quote, QuoteCreate, QuoteDetail, QuoteQuery, QuoteUpdate } from './quotes.schemas.ts';

export const quoteCodec = tableCodec<Quote>()('quotes', { json: ['line_items', 'custom_fields', 'approval'], omit: ['created_by'] });
export const quotes = tenantRows('quotes');

/** The API record of a row; `extra`: the columns a query joined in, left to its caller. */
export function quoteOf(row: Selectable<QuotesTable>, extra?: ReadonlySet<string>): Quote {
  return quoteCodec.decode(row, extra);
}

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'number', 'name', 'status', 'total', 'date', 'expire_on', 'created_at', 'updated_at']),
  searchContact: 'quotes.contact_id',
  search: ['name', sql`cast(number as text)`],
};

const list = listOf(listSpec, (db, f: { ws: number; contact_id?: number; status?: string[]; exclude_statuses?: string[]; expand: boolean }) => {
  let qb = db
    .selectFrom('quotes')
    .select(['id', 'number', 'name', 'status', 'contact_id', 'total', 'date', 'expire_on', 'created_at'])
    .where('workspace_id', '=', f.ws);
  if (f.expand) qb = qb.select((eb) => contactNameJson(eb, dialectOf(db), 'quotes.contact_id').as('contact'));
  if (f.contact_id) qb = qb.where('contact_id', '=', f.contact_id);
  if (f.status) qb = qb.where('status', 'in', f.status);
  if (f.exclude_statuses) qb = qb.where('status', 'not in', f.exclude_statuses);
  return qb;
});

export async function listQuotes(db: Kysely<DB>, workspaceId: number, q: QuoteQuery) {
  const status = q.status ? csv(q.status) : undefined;
  const exclude_statuses = q.exclude_statuses ? csv(q.exclude_statuses) : undefined;
  const expand = q.expand === 'contact';
  const page = await list(db, { ws: workspaceId, contact_id: q.contact_id, status, exclude_statuses, expand }, q);
  return expand ? { pagination: page.pagination, rows: page.rows.map(withContact) } : page;
}

type StatusChangeRow = { quote_id: number; status: string; comment: string | null; user_id: string | null; created_at: string; by_customer?: number };
// Compiled once per shape, as every hot write (F166): a status change is on the path of accepting a quote.
const insertStatusChangeQuery = shapedQuery((db, values: StatusChangeRow & { workspace_id: number }) => db.insertInto('quote_status_changes').values(values));

export async function insertStatusChange(db: Kysely<DB>, workspaceId: number, change: StatusChangeRow) {
  await insertStatusChangeQuery(db, { ...change, workspace_id: workspaceId });
}


/** The related records a quote's detail carries besides its job and status changes. */
export interface QuoteRefs {
  contact: ContactRef | null;
  property: PropertyRef | null;
  request: DocumentRef | null;
  salesperson: UserRef | null;
}

type QuoteBuilder = ExpressionBuilder<DB, 'quotes'>;

/**
 * D14: the job the quote yielded, as a DocumentRef. Found through the unique `quote_id`
 * index (F182); the workspace is checked on the job found (`+ 0` keeps that check out of
 * any index): with both as index conditions, a PostgreSQL plan made while `jobs` was empty
 * (a connection's named statement keeps it) read the job through the workspace's status
 * index, filtering every job of the workspace by quote, slower with each job.
 */
const jobOfQuoteJson = (eb: QuoteBuilder, d: ReturnType<typeof dialectOf>) =>
  jsonObjectFrom(
    d,
    eb
      .selectFrom('jobs')
      .select(['jobs.id', 'jobs.number', 'jobs.name', 'jobs.status'])
      .whereRef('jobs.quote_id', '=', 'quotes.id')
      .where(sql<boolean>`${sql.ref('jobs.workspace_id')} + 0 = ${sql.ref('quotes.workspace_id')}`),
  );

/**
 * "Get quote: expanded with related data" in one statement: the row, its
 * related records, its job (D14) and its status changes as JSON subqueries.
 * `lock` holds the row until commit (status transitions); `jobFields` also
 * loads the job custom field definitions an acceptance needs (D23).
 */
export async function findQuoteDetail(
  db: Kysely<DB>,
  workspaceId: number,
  id: number,
  { lock = false, jobFields = false }: { lock?: boolean; jobFields?: boolean } = {},
): Promise<{ detail: QuoteDetail; jobDefs: FieldDef[] } | undefined> {
  const [row] = await detailById[Number(lock) * 2 + Number(jobFields)](db, { ws: workspaceId, id });
  return row ? quoteDetailOf(row) : undefined;
}

// The single GET (and a status move's read) built and compiled once per variant: building
// this query with Kysely cost more CPU than running it (profile of GET /quotes/:id).
const detailById = [false, true].flatMap((lock) =>
  [false, true].map((jobFields) =>
    prepared({ ws: 'number', id: 'number' }, (db, p) => {
      const qb = detailQuery(db, p.ws, jobFields).where('quotes.id', '=', p.id);
      return lock ? locked(db, qb) : qb;
    }),
  ),
);

/** Many quotes' single-GET shapes, BULK_ROWS ids per statement (E14: the daily run's `quote_updated`). */
export async function findQuoteDetails(db: Kysely<DB>, workspaceId: number, ids: readonly number[]): Promise<QuoteDetail[]> {
  const out: QuoteDetail[] = [];
  for (let i = 0; i < ids.length; i += BULK_ROWS) {
    const rows = await detailQuery(db, workspaceId, false).where('quotes.id', 'in', ids.slice(i, i + BULK_ROWS)).orderBy('quotes.id').execute();
    out.push(...rows.map((r) => quoteDetailOf(r).detail));
  }
  return out;
}

function detailQuery(db: Kysely<DB>, workspaceId: number, jobFields: boolean) {
  const d = dialectOf(db);
  return db
    .selectFrom('quotes')
    .selectAll('quotes')
    .select((eb) => [
      contactRefJson(eb, d, 'quotes.contact_id').as('contact'),
      propertyRefJson(eb, d, 'quotes.property_id').as('property'),
      documentRefJson(eb, d, 'quotes.request_id').as('request'),
      userRefJson(eb, d, 'quotes.salesperson_id').as('salesperson'),
      jobOfQuoteJson(eb, d).as('job'),
      jsonArrayFrom(
        d,
        eb
          .selectFrom('quote_status_changes as sc')
          .select(['sc.status', 'sc.comment', 'sc.user_id', 'sc.created_at'])
          .whereRef('sc.workspace_id', '=', 'quotes.workspace_id')
          .whereRef('sc.quote_id', '=', 'quotes.id')
          .orderBy('sc.id'),
      ).as('status_changes'),
      customFieldDefsJson(eb, d, workspaceId, jobFields ? 'job' : null).as('job_fields'),
    ])
    .where('quotes.workspace_id', '=', workspaceId);
}

type DetailRow = Awaited<ReturnType<ReturnType<typeof detailQuery>['executeTakeFirstOrThrow']>>;

const DETAIL_COLUMNS = new Set(['contact', 'property', 'request', 'salesperson', 'job', 'status_changes', 'job_fields']);

function quoteDetailOf(row: DetailRow): { detail: QuoteDetail; jobDefs: FieldDef[] } {
  const detail: QuoteDetail = Object.assign(quoteOf(row, DETAIL_COLUMNS), {
    contact: parseJson(row.contact),
    property: parseJson(row.property),
    request: parseJson(row.request),
    salesperson: parseJson(row.salesperson),
    job: parseJson(row.job),
    status_changes: parseJson(row.status_changes) ?? [],
  });
  return { detail, jobDefs: fieldDefsOf(row.job_fields) };
}

/**
 * Before a write, in one statement: the records the body references (D11,
 * in the workspace), the template's existence, and the custom field definitions
 * the write validates against (D23). `missing`: a given reference was not found.
 */
interface QuoteInputValues {
  ws: number;
  contact: number | null | undefined;
  property: number | null | undefined;
  request: number | null | undefined;
  salesperson: string | null | undefined;
  template: number | null;
  quoteFields: boolean;
  jobFields: boolean;
}
const quoteRefsOf = (v: Pick<QuoteInputValues, 'ws' | 'contact' | 'property' | 'request' | 'salesperson'>) =>
  pendingRefs(v.ws, {
    contact: ['contact', v.contact],
    property: ['property', v.property],
    request: ['request', v.request],
    salesperson: ['user', v.salesperson],
  });

// Built and compiled once per shape (F166): which references the body names.
const quoteInputs = shapedQuery((db, v: QuoteInputValues) => {
  const d = dialectOf(db);
  const p = quoteRefsOf(v);
  return db.selectFrom(p.from).select((eb) => [
    ...p.select(eb, d),
    eb.selectFrom('quote_templates').select('quote_templates.id').where('quote_templates.workspace_id', '=', v.ws).where('quote_templates.id', '=', v.template).as('template'),
    customFieldDefsJson(eb, d, v.ws, v.quoteFields ? 'quote' : null).as('quote_fields'),
    customFieldDefsJson(eb, d, v.ws, v.jobFields ? 'job' : null).as('job_fields'),
  ]);
});

/**
 * Before a write, in one statement: the records the body references (D11,
 * in the workspace), the template's existence, and the custom field definitions
 * the write validates against (D23). `missing`: a given reference was not found.
 */
export async function loadQuoteInputs(
  db: Kysely<DB>,
  workspaceId: number,
  body: QuoteCreate | QuoteUpdate,
  { quoteFields, jobFields }: { quoteFields: boolean; jobFields: boolean },
): Promise<{ refs: QuoteRefs; quoteDefs: FieldDef[]; jobDefs: FieldDef[]; missing: boolean }> {
  const v: QuoteInputValues = {
    ws: workspaceId,
    contact: body.contact_id,
    property: body.property_id,
    request: body.request_id,
    salesperson: body.salesperson_id,
    template: body.template_id ?? null,
    quoteFields,
    jobFields,
  };
  const [row] = await quoteInputs(db, v);
  if (!row) throw new Error('loadQuoteInputs: no row');
  const { refs, missing: notFound } = quoteRefsOf(v).read(row);
  const given = (x: unknown) => x !== undefined && x !== null;
  const missing = notFound.length > 0 || (given(body.template_id) && (row.template === null || row.template === undefined));
  return { refs, quoteDefs: fieldDefsOf(row.quote_fields), jobDefs: fieldDefsOf(row.job_fields), missing };
}

// Compiled once per shape of the row (which columns are set), as lists are (F165).
const insertQuoteQuery = shapedQuery((db, values: Insertable<QuotesTable>) => db.insertInto('quotes').values(values).returningAll());

export async function insertQuote(db: Kysely<DB>, values: Insertable<QuotesTable>): Promise<Quote> {
  const [row] = await insertQuoteQuery(db, values);
  return quoteOf(row!);
}

/** E8: records the customer's approval on the quote (the caller holds its row lock). */
export async function setQuoteApproval(db: Kysely<DB>, workspaceId: number, id: number, approval: string): Promise<void> {
  await db.updateTable('quotes').set({ approval }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

const JOB_COLUMN = new Set(['job']);

// One flat object: shapedQuery keys a nested object by its JSON, values included.
const updateQuoteQuery = shapedQuery((db, { where_ws, where_id, ...set }: Updateable<QuotesTable> & { where_ws: number; where_id: number }) =>
  db
    .updateTable('quotes')
    .set(set)
    .where('quotes.workspace_id', '=', where_ws)
    .where('quotes.id', '=', where_id)
    .returningAll()
    .returning((eb) => jobOfQuoteJson(eb, dialectOf(db)).as('job')),
);

/** Updates the row and answers it with its job, read after the row lock was taken (D14: a job made meanwhile is seen). */
export async function updateQuoteRow(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<QuotesTable>): Promise<{ quote: Quote; job: DocumentRef | null }> {
  const [row] = await updateQuoteQuery(db, { ...values, where_ws: workspaceId, where_id: id });
  if (!row) throw new Error('updateQuoteRow: no row');
  return { quote: quoteOf(row, JOB_COLUMN), job: parseJson(row.job) };
}
