import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import {assignIds, omitPricing, type Pricing, pricingOf } from '../../domain/line-items.ts';
import { resolvePricing } from '../../db/pricing.ts';
import { nextNumber } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import { contactRef, documentRef, propertyRef, userRef } from '../../db/related.ts';
import { locked } from '../../db/locks.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { jobCodec, jobOf, jobOfQuote, jobs, listJobs } from './jobs.repo.ts';
import type { Expense, ExpenseInput, Job, JobCreate, JobDetail, JobListItem, JobQuery, JobUpdate } from './jobs.schemas.ts';
import { checkCustomFields } from '../custom-fields/custom-fields.service.ts';

export async function getJobDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<JobDetail> {
  const row = await jobs.find(db, workspaceId, id);
  if (!row) throw notFound('Job');
  const job = jobOf(row);
  return {
    ...job,
    contact: await contactRef(db, workspaceId, job.contact_id),
    property: await propertyRef(db, workspaceId, job.property_id),
    request: await documentRef(db, 'requests', workspaceId, job.request_id),
    quote: await documentRef(db, 'quotes', workspaceId, job.quote_id),
    salesperson: await userRef(db, workspaceId, job.salesperson_id),
  };
}

/** D10: ids assigned, unset fields null. */
const normalizeExpenses = (items: ExpenseInput[]): Expense[] =>
  assignIds(items).map((e) => ({
    id: e.id,
    name: e.name,
    description: e.description ?? null,
    date: e.date ?? null,
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
  const quote = await locked(trx, trx.selectFrom('quotes').select('id').where('workspace_id', '=', workspaceId).where('id', '=', quoteId)).executeTakeFirst();
  if (!quote) throw invalidField(['quote_id'], `quote_id ${quoteId} does not exist`);
  const existing = await jobOfQuote(trx, workspaceId, quoteId);
  if (existing && existing.id !== self) throw quoteTaken(quoteId);
}

export type JobValues = Omit<Job, 'id' | 'workspace_id' | 'number' | 'created_at' | 'updated_at'>;

/**
 * Inserts checked values with the next job number (D13) and records `new_job`
 * (D16). The REST create and the quote acceptance (D14) both end here.
 */
export async function insertJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, values: JobValues): Promise<JobDetail> {
  const number = await nextNumber(trx, workspaceId, 'jobs');
  const at = now();
  let id: number;
  try {
    id = await jobs.insert(trx, { ...jobCodec.encode(values), number, workspace_id: workspaceId, created_by: userId, created_at: at, updated_at: at });
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
  const job = await getJobDetail(trx, workspaceId, id);
  await emit(trx, workspaceId, 'new_job', 'jobs', job);
  return job;
}

export async function createJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: JobCreate): Promise<JobDetail> {
  await checkReferences(trx, workspaceId, refsOf(body));
  if (body.quote_id) await claimQuote(trx, workspaceId, body.quote_id, null);
  const pricing: Pricing = await resolvePricing(trx, workspaceId, null, body);
  return insertJob(trx, workspaceId, userId, {
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
  });
}

/** A partial update (PUT or the status endpoint). */
export async function updateJob(trx: Kysely<DB>, workspaceId: number, id: number, body: JobUpdate): Promise<JobDetail> {
  const row = await jobs.find(trx, workspaceId, id, { lock: true });
  if (!row) throw notFound('Job');
  await checkReferences(trx, workspaceId, refsOf(body));
  if (body.quote_id && body.quote_id !== row.quote_id) await claimQuote(trx, workspaceId, body.quote_id, id);
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(jobOf(row)), body);
  const { expenses, ...plain } = omitPricing(body);
  const values = { ...plain, ...(expenses !== undefined ? { expenses: normalizeExpenses(expenses) } : {}), ...pricing };
  await jobs.update(trx, workspaceId, id, { ...jobCodec.encode(values), updated_at: now() });
  return getJobDetail(trx, workspaceId, id);
}

export function jobsService({ db }: AppContext): CrudService<JobQuery, JobCreate, JobUpdate, JobListItem, JobDetail> {
  return {
    list: (auth, query) => listJobs(db, auth.workspaceId, query),
    get: (auth, id) => getJobDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'job', body.custom_fields, { create: true }); // D23
        return createJob(trx, auth.workspaceId, auth.userId, body);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        await checkCustomFields(trx, auth.workspaceId, 'job', body.custom_fields, { create: false }); // D23
        return updateJob(trx, auth.workspaceId, id, body);
      }),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; invoices that named it keep going without it.
      await deleteWithAttachments(db, auth, 'job', id, 'Job', (trx) => jobs.remove(trx, auth.workspaceId, id));
    },
  };
}
