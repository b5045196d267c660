import { type ExpressionBuilder, type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { tableCodec } from '../../db/codec.ts';
import type { DB, JobsTable } from '../../db/schema.ts';
import { locked } from '../../db/locks.ts';
import { tenantRows } from '../../db/tenant-rows.ts';
import { type ListSpec, listOf, type PageResult, sortByName } from '../../db/list-query.ts';
import { shapedQuery } from '../../db/shaped.ts';
import { type Dialect, dialectOf, jsonArrayFrom, type JsonText, parseJson } from '../../db/json-helpers.ts';
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
import type { Job, JobCreate, JobDetail, JobListItem, JobQuery, JobUpdate, StoredSchedule } from './jobs.schemas.ts';
import { nextVisitFrom, presentSchedule, storedSchedule } from './recurring.ts';
import { CLOSED_VISIT } from './recurring.repo.ts';

// `schedule` is stored as the rule (StoredSchedule) and answered with what E20 adds to it: read by jobOf.
export const jobCodec = tableCodec<Job>()('jobs', { json: ['line_items', 'expenses', 'custom_fields'], omit: ['created_by', 'schedule', 'generated_through'] });
export const jobs = tenantRows('jobs');

/** The API record of a row; `nextVisitOn` for its schedule (E20). */
export function jobOf(row: Selectable<JobsTable>, extra?: ReadonlySet<string>, nextVisitOn: string | null = null): Job {
  return Object.assign(jobCodec.decode(row, extra), { schedule: presentSchedule(storedSchedule(row.schedule), row.generated_through, nextVisitOn) });
}

/** The UTC date before today: no workspace's today is earlier, so its next visits are among the dates from here on. */
const utcYesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/**
 * E20 `next_visit_on` in the job's own statement: its first three visit dates from
 * yesterday in UTC on that are still to be done, and the workspace's timezone; the
 * answer picks the first on or after the workspace's today (nextVisitFrom).
 */
const nextVisitsJson = (eb: ExpressionBuilder<DB, 'jobs'>, d: Dialect, since: string) =>
  jsonArrayFrom(
    d,
    eb
      .selectFrom('events as v')
      .select('v.start_date')
      .whereRef('v.workspace_id', '=', 'jobs.workspace_id')
      .whereRef('v.job_id', '=', 'jobs.id')
      .where('v.occurrence_date', 'is not', null)
      .where('v.status', 'not in', CLOSED_VISIT)
      .where('v.start_date', '>=', since)
      .groupBy('v.start_date')
      .orderBy('v.start_date')
      .limit(3),
  );
const zoneOfJob = (eb: ExpressionBuilder<DB, 'jobs'>) => eb.selectFrom('workspaces as w').select('w.timezone').whereRef('w.id', '=', 'jobs.workspace_id');
const NEXT_VISITS = ['next_visits', 'zone'] as const;

/** A row read with NEXT_VISITS: the job with its schedule's next visit. */
function jobWithNextVisit<R extends Selectable<JobsTable> & { next_visits: JsonText<{ start_date: string }[]> | null; zone: string | null }>(row: R, extra: ReadonlySet<string>): Job {
  const next = row.schedule === null ? null : nextVisitFrom((parseJson(row.next_visits) ?? []).map((v) => v.start_date), row.zone);
  return jobOf(row, extra, next);
}

const listSpec: ListSpec = {
  id: 'id',
  sort: sortByName(['id', 'number', 'name', 'status', 'type', 'total', 'created_at', 'updated_at']),
  searchContact: 'jobs.contact_id',
  search: ['name', sql`cast(number as text)`],
};

const list = listOf(listSpec, (db, f: { ws: number; since: string; contact_id?: number; quote_id?: number; status?: string[]; to_invoice?: boolean; expand: boolean }) => {
  const d = dialectOf(db);
  let qb = db
    .selectFrom('jobs')
    .select(['id', 'number', 'name', 'status', 'type', 'contact_id', 'total', 'schedule', 'generated_through', 'created_at'])
    .select((eb) => [nextVisitsJson(eb, d, f.since).as('next_visits'), zoneOfJob(eb).as('zone')])
    .where('workspace_id', '=', f.ws);
  if (f.expand) qb = qb.select((eb) => contactNameJson(eb, dialectOf(db), 'jobs.contact_id').as('contact'));
  if (f.contact_id) qb = qb.where('contact_id', '=', f.contact_id);
  if (f.quote_id) qb = qb.where('quote_id', '=', f.quote_id);
  if (f.status) qb = qb.where('status', 'in', f.status);
  if (f.to_invoice !== undefined) {
    // Home's "Jobs to invoice" (F221): completed, and no invoice names the job.
    const toInvoice = (eb: ExpressionBuilder<DB, 'jobs'>) =>
      eb.and([
        eb('jobs.status', '=', 'completed'),
        eb.not(eb.exists(eb.selectFrom('invoices').select('invoices.id').whereRef('invoices.workspace_id', '=', 'jobs.workspace_id').whereRef('invoices.job_id', '=', 'jobs.id'))),
      ]);
    qb = qb.where((eb) => (f.to_invoice ? toInvoice(eb) : eb.not(toInvoice(eb))));
  }
  return qb;
});

export async function listJobs(db: Kysely<DB>, workspaceId: number, q: JobQuery): Promise<PageResult<JobListItem>> {
  const expand = q.expand === 'contact';
  const page = await list(db, { ws: workspaceId, since: utcYesterday(), contact_id: q.contact_id, quote_id: q.quote_id, status: q.status ? csv(q.status) : undefined, to_invoice: q.to_invoice, expand }, q);
  const rows = page.rows.map(({ schedule, generated_through, next_visits, zone, ...item }) => {
    const next = schedule === null ? null : nextVisitFrom((parseJson(next_visits) ?? []).map((v) => v.start_date), zone);
    return { ...item, schedule: presentSchedule(storedSchedule(schedule), generated_through, next) };
  });
  return { rows: expand ? rows.map(withContact) : rows, pagination: page.pagination };
}

/** D11 + D14: whether the quote exists, holding its row until commit (a job naming it and its acceptance queue). */
export async function lockQuote(db: Kysely<DB>, workspaceId: number, quoteId: number): Promise<boolean> {
  return Boolean(await locked(db, db.selectFrom('quotes').select('id').where('workspace_id', '=', workspaceId).where('id', '=', quoteId)).executeTakeFirst());
}

/** D14: the job a quote already yielded, if any. */
export async function jobOfQuote(db: Kysely<DB>, workspaceId: number, quoteId: number) {
  return db.selectFrom('jobs').select('id').where('workspace_id', '=', workspaceId).where('quote_id', '=', quoteId).executeTakeFirst();
}


/** The related records a job's detail carries. */
export interface JobRefs {
  contact: ContactRef | null;
  property: PropertyRef | null;
  request: DocumentRef | null;
  quote: DocumentRef | null;
  salesperson: UserRef | null;
}

/** "Get job: expanded with related data" in one statement (related records as JSON subqueries); `lock` holds the row until commit. */
export async function findJobDetail(db: Kysely<DB>, workspaceId: number, id: number, { lock = false } = {}): Promise<JobDetail | undefined> {
  return (await readJobDetail(db, workspaceId, id, lock))?.detail;
}

/** The job's detail with its rule as stored (E20), the row locked until commit: what an update starts from. */
export type JobStored = JobDetail & { stored: StoredSchedule | null };
export async function findJobStored(db: Kysely<DB>, workspaceId: number, id: number): Promise<JobStored | undefined> {
  const read = await readJobDetail(db, workspaceId, id, true);
  return read && Object.assign(read.detail, { stored: storedSchedule(read.schedule) });
}

async function readJobDetail(db: Kysely<DB>, workspaceId: number, id: number, lock: boolean): Promise<{ detail: JobDetail; schedule: string | null } | undefined> {
  const d = dialectOf(db);
  const qb = db
    .selectFrom('jobs')
    .selectAll('jobs')
    .select((eb) => [
      contactRefJson(eb, d, 'jobs.contact_id').as('contact'),
      propertyRefJson(eb, d, 'jobs.property_id').as('property'),
      documentRefJson(eb, d, 'jobs.request_id').as('request'),
      documentRefJson(eb, d, 'jobs.quote_id').as('quote'),
      userRefJson(eb, d, 'jobs.salesperson_id').as('salesperson'),
      nextVisitsJson(eb, d, utcYesterday()).as('next_visits'),
      zoneOfJob(eb).as('zone'),
    ])
    .where('jobs.workspace_id', '=', workspaceId)
    .where('jobs.id', '=', id);
  const row = await (lock ? locked(db, qb) : qb).executeTakeFirst();
  if (!row) return undefined;
  const detail = Object.assign(jobWithNextVisit(row, DETAIL_COLUMNS), {
    contact: parseJson(row.contact),
    property: parseJson(row.property),
    request: parseJson(row.request),
    quote: parseJson(row.quote),
    salesperson: parseJson(row.salesperson),
  });
  return { detail, schedule: row.schedule };
}
const DETAIL_COLUMNS = new Set(['contact', 'property', 'request', 'quote', 'salesperson', ...NEXT_VISITS]);

interface JobInputValues {
  ws: number;
  contact: number | null | undefined;
  property: number | null | undefined;
  request: number | null | undefined;
  quote: number | null | undefined;
  salesperson: string | null | undefined;
  fields: boolean;
}
const jobRefsOf = (v: JobInputValues) =>
  pendingRefs(v.ws, {
    contact: ['contact', v.contact],
    property: ['property', v.property],
    request: ['request', v.request],
    quote: ['quote', v.quote],
    salesperson: ['user', v.salesperson],
  });
// Built and compiled once per shape (F166): which references the body names.
const jobInputs = shapedQuery((db, v: JobInputValues) => {
  const d = dialectOf(db);
  const p = jobRefsOf(v);
  return db.selectFrom(p.from).select((eb) => [...p.select(eb, d), customFieldDefsJson(eb, d, v.ws, v.fields ? 'job' : null).as('fields')]);
});

/**
 * Before a write, in one statement: the records the body references (D11, in
 * the workspace) and, with `fields`, the job custom field definitions (D23).
 * `missing`: a given contact, property, request or salesperson was not found.
 */
export async function loadJobInputs(
  db: Kysely<DB>,
  workspaceId: number,
  body: JobCreate | JobUpdate,
  { fields }: { fields: boolean },
): Promise<{ refs: JobRefs; defs: FieldDef[]; missing: boolean }> {
  const v: JobInputValues = {
    ws: workspaceId,
    contact: body.contact_id,
    property: body.property_id,
    request: body.request_id,
    quote: body.quote_id,
    salesperson: body.salesperson_id,
    fields,
  };
  const [row] = await jobInputs(db, v);
  if (!row) throw new Error('loadJobInputs: no row');
  const { refs, missing: notFound } = jobRefsOf(v).read(row);
  // A missing quote is refused by claimQuote (D14), with its own wording.
  const missing = notFound.some((name) => name !== 'quote');
  return { refs, defs: fieldDefsOf(row.fields), missing };
}

// The writes' statements are compiled once per shape (which columns are set), as lists are (F165, F166).
const insertJobQuery = shapedQuery((db, values: Insertable<JobsTable>) => db.insertInto('jobs').values(values).returningAll());
// One flat object: shapedQuery keys a nested object by its JSON, values included.
const updateJobQuery = shapedQuery((db, { where_ws, where_id, ...set }: Updateable<JobsTable> & { where_ws: number; where_id: number }) =>
  db.updateTable('jobs').set(set).where('workspace_id', '=', where_ws).where('id', '=', where_id).returningAll(),
);

export async function insertJobRow(db: Kysely<DB>, values: Insertable<JobsTable>): Promise<Job> {
  const [row] = await insertJobQuery(db, values);
  if (!row) throw new Error('insertJobRow: no row');
  return jobOf(row);
}

export async function updateJobRow(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<JobsTable>): Promise<Job> {
  const [row] = await updateJobQuery(db, { ...values, where_ws: workspaceId, where_id: id });
  if (!row) throw new Error('updateJobRow: no row');
  return jobOf(row);
}
