import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {assignIds, omitPricing, type Pricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { nextNumber } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { actsAsMember } from '../../http/roles.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { emit, type OutboxEvent } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { findJobDetail, insertJobRow, jobCodec, jobOfQuote, type JobRefs, jobs, listJobs, loadJobInputs, lockQuote, updateJobRow } from './jobs.repo.ts';
import type { Expense, ExpenseInput, Job, JobCreate, JobDetail, JobDetailAnswer, JobListItemAnswer, JobMoneyField, JobQuery, JobUpdate } from './jobs.schemas.ts';
import { type FieldDef, validateCustomFields } from '../custom-fields/custom-fields.service.ts';

export async function getJobDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<JobDetail> {
  const detail = await findJobDetail(db, workspaceId, id);
  if (!detail) throw notFound('Job');
  return detail;
}

/** D10: ids assigned, unset fields null. */
const normalizeExpenses = (items: ExpenseInput[]): Expense[] =>
  assignIds(items).map((e) => ({
    id: e.id,
    name: e.name,
    description: e.description ?? null,
    date: e.date,
    amount: e.amount,
    category: e.category ?? null,
    receipt_upload_id: e.receipt_upload_id ?? null,
  }));

const refsOf = (body: JobCreate | JobUpdate) => ({
  ids: {
    contact_id: ['contacts', body.contact_id] as [string, number | null | undefined],
    property_id: ['properties', body.property_id] as [string, number | null | undefined],
    request_id: ['requests', body.request_id] as [string, number | null | undefined],
  },
  users: { salesperson_id: body.salesperson_id },
});

const quoteTaken = (quoteId: number) => invalidField(['quote_id'], `quote ${quoteId} already has a job`);

/**
 * D11 + D14 for a `quote_id` written through the jobs API: the quote exists
 * and has no other job. The quote row is locked first, so this write and an
 * acceptance of the same quote queue instead of racing.
 */
async function claimQuote(trx: Kysely<DB>, workspaceId: number, quoteId: number, self: number | null) {
  if (!(await lockQuote(trx, workspaceId, quoteId))) throw invalidField(['quote_id'], `quote_id ${quoteId} does not exist`);
  const existing = await jobOfQuote(trx, workspaceId, quoteId);
  if (existing && existing.id !== self) throw quoteTaken(quoteId);
}

export type JobValues = Omit<Job, 'id' | 'workspace_id' | 'number' | 'created_at' | 'updated_at'>;

/**
 * The one function that creates a job (the REST create and the quote
 * acceptance, D14): D23 required custom fields (`fieldDefs`, loaded by the
 * caller with its references), the next job number (D13), the row, and
 * `new_job` (D16). The answer is built from the inserted row and the related
 * records the caller already loaded (`refs`), without reading the job back.
 * With `events`, `new_job` is added there for the caller to record with its
 * own events in one statement (`emitAll`); otherwise it is recorded here.
 */
export async function insertJob(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  values: JobValues,
  { refs, fieldDefs, events }: { refs: JobRefs; fieldDefs: FieldDef[]; events?: OutboxEvent[] },
): Promise<JobDetail> {
  validateCustomFields(fieldDefs, values.custom_fields, { create: true }); // D23, on every create path
  const number = await nextNumber(trx, workspaceId, 'jobs');
  const at = now();
  let job: Job;
  try {
    job = await insertJobRow(trx, { ...jobCodec.encode(values), number, workspace_id: workspaceId, created_by: userId, created_at: at, updated_at: at });
  } catch (err) {
    // The unique index is D14's last line of defence.
    if (
      values.quote_id !== null &&
      isUniqueViolation(err) &&
      /quote/.test(String((err as Error).message) + String((err as { constraint?: string }).constraint))
    ) {
      throw quoteTaken(values.quote_id);
    }
    throw err;
  }
  const detail: JobDetail = { ...job, ...refs };
  const event: OutboxEvent = { event: 'new_job', resource: 'jobs', data: detail };
  if (events) events.push(event);
  else await emit(trx, workspaceId, event.event, event.resource, event.data);
  return detail;
}

/** D11 failed for some reference: checkReferences names each missing one (400). */
async function refuseMissing(trx: Kysely<DB>, workspaceId: number, body: JobCreate | JobUpdate): Promise<void> {
  await checkReferences(trx, workspaceId, refsOf(body));
}

export async function createJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: JobCreate): Promise<JobDetail> {
  const inputs = await loadJobInputs(trx, workspaceId, body, { fields: true });
  validateCustomFields(inputs.defs, body.custom_fields, { create: true }); // D23: before any other check, as before
  if (inputs.missing) await refuseMissing(trx, workspaceId, body);
  if (body.quote_id) await claimQuote(trx, workspaceId, body.quote_id, null);
  const pricing: Pricing = await resolvePricing(trx, workspaceId, null, body);
  return insertJob(
    trx,
    workspaceId,
    userId,
    {
      name: body.name ?? null,
      contact_id: body.contact_id ?? null,
      property_id: body.property_id ?? null,
      request_id: body.request_id ?? null,
      quote_id: body.quote_id ?? null,
      salesperson_id: body.salesperson_id ?? null,
      type: body.type ?? 'one-off',
      expected_end_date: body.expected_end_date ?? null,
      expenses: normalizeExpenses(body.expenses ?? []),
      status: body.status ?? 'draft',
      custom_fields: body.custom_fields ?? null,
      ...pricing,
    },
    { refs: inputs.refs, fieldDefs: inputs.defs },
  );
}

const REF_FIELDS = ['contact_id', 'property_id', 'request_id', 'quote_id', 'salesperson_id'] as const;

/** A partial update (PUT or the status endpoint), answered from the locked read, the references loaded and the updated row. */
export async function updateJob(trx: Kysely<DB>, workspaceId: number, id: number, body: JobUpdate): Promise<JobDetail> {
  const before = await findJobDetail(trx, workspaceId, id, { lock: true });
  if (!before) throw notFound('Job');
  const inputs =
    body.custom_fields !== undefined || REF_FIELDS.some((f) => body[f] !== undefined)
      ? await loadJobInputs(trx, workspaceId, body, { fields: body.custom_fields !== undefined })
      : null;
  if (inputs) {
    validateCustomFields(inputs.defs, body.custom_fields, { create: false }); // D23
    if (inputs.missing) await refuseMissing(trx, workspaceId, body);
  }
  if (body.quote_id && body.quote_id !== before.quote_id) await claimQuote(trx, workspaceId, body.quote_id, id);
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  const { expenses, ...plain } = omitPricing(body);
  const values = { ...plain, ...(expenses !== undefined ? { expenses: normalizeExpenses(expenses) } : {}), ...pricing };
  const job = await updateJobRow(trx, workspaceId, id, { ...jobCodec.encode(values), updated_at: now() });
  const pick = <K extends keyof JobRefs>(key: K, field: (typeof REF_FIELDS)[number]): JobRefs[K] =>
    body[field] === undefined || !inputs ? before[key] : inputs.refs[key];
  const detail: JobDetail = {
    ...job,
    contact: pick('contact', 'contact_id'),
    property: pick('property', 'property_id'),
    request: pick('request', 'request_id'),
    quote: pick('quote', 'quote_id'),
    salesperson: pick('salesperson', 'salesperson_id'),
  };
  await emit(trx, workspaceId, 'job_updated', 'jobs', detail); // E14: every write, status included
  return detail;
}

/** A14: a member's session reads jobs without line items, totals, expenses or any other money. */
function withoutMoney<T extends Partial<Record<JobMoneyField, unknown>>>(job: T): Omit<T, JobMoneyField> {
  const { expenses, line_items, discount, discount_unit, deposit, deposit_unit, tax_rate, tax_rate_id, total, ...rest } = job;
  return rest;
}

export function jobsService({ db }: AppContext): CrudService<JobQuery, JobCreate, JobUpdate, JobListItemAnswer, JobDetailAnswer> {
  return {
    list: async (auth, query) => {
      const page = await listJobs(db, auth.workspaceId, query);
      return actsAsMember(auth) ? { ...page, rows: page.rows.map(withoutMoney) } : page;
    },
    get: async (auth, id) => {
      const job = await getJobDetail(db, auth.workspaceId, id);
      return actsAsMember(auth) ? withoutMoney(job) : job;
    },
    create: (auth, body) =>
      transact(db, auth, (trx) => createJob(trx, auth.workspaceId, auth.userId, body)),
    update: (auth, id, body) =>
      transact(db, auth, (trx) => updateJob(trx, auth.workspaceId, id, body)),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; invoices that named it keep going without it.
      await deleteWithAttachments(db, auth, 'job', id, 'Job', async (trx) => {
        const gone = await jobs.remove(trx, auth.workspaceId, id);
        if (gone) await emit(trx, auth.workspaceId, 'job_deleted', 'jobs', { id }); // E14
        return gone;
      });
    },
  };
}
