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
import type { CrudService, WithMeta } from '../../http/crud.ts';
import { actsAsMember } from '../../http/roles.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { emit, type OutboxEvent } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { findJobDetail, findJobStored, insertJobRow, jobCodec, jobOfQuote, type JobRefs, type JobStored, jobs, listJobs, loadJobInputs, lockQuote, updateJobRow } from './jobs.repo.ts';
import type {
  Expense,
  ExpenseInput,
  Job,
  JobCreate,
  JobDetail,
  JobDetailAnswer,
  JobListItemAnswer,
  JobMoneyField,
  JobQuery,
  JobUpdate,
  JobWriteMeta,
  ScheduleInput,
  SchedulePreview,
  SchedulePreviewBody,
  StoredSchedule,
} from './jobs.schemas.ts';
import { MAX_SKIPPED_DATES } from './jobs.schemas.ts';
import { userRefs } from '../../db/references.ts';
import { addDays, describeRule, firstDates, laterDate } from '../../domain/recurrence.ts';
import { clockOf, datesOf, dropVisits, makeVisits, ruleOf, scheduleOf, scheduleText, type SeriesJob, type SeriesSpan, STOPPED, storedRule, storedSchedule } from './recurring.ts';
import { lockJobSchedule, nextVisitOn, workspaceZone, writeJobSchedule } from './recurring.repo.ts';
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

export type JobValues = Omit<Job, 'id' | 'workspace_id' | 'number' | 'created_at' | 'updated_at' | 'schedule' | 'invoicing'> & { invoicing?: string };

/** A write's series (E20): the rule as stored and how far its visits were made. */
export interface SeriesValues {
  schedule: StoredSchedule | null;
  generated_through: string | null;
}

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
  { refs, fieldDefs, events, series, beforeEmit }: {
    refs: JobRefs;
    fieldDefs: FieldDef[];
    events?: OutboxEvent[];
    series?: SeriesValues;
    /** Runs with the job inserted, before `new_job` is recorded (E20: its visits, then the job with its next visit). */
    beforeEmit?: (job: Job) => Promise<Job>;
  },
): Promise<JobDetail> {
  validateCustomFields(fieldDefs, values.custom_fields, { create: true }); // D23, on every create path
  const number = await nextNumber(trx, workspaceId, 'jobs');
  const at = now();
  let job: Job;
  try {
    const seriesColumns = series ? { schedule: scheduleText(series.schedule), generated_through: series.generated_through } : {};
    job = await insertJobRow(trx, { ...jobCodec.encode(values), ...seriesColumns, number, workspace_id: workspaceId, created_by: userId, created_at: at, updated_at: at });
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
  if (beforeEmit) job = await beforeEmit(job);
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

/** What a job's write did to its visits (E21 `meta`). */
export interface JobWrite {
  detail: JobDetail;
  meta: JobWriteMeta;
}

/** E20/E22: a schedule and `per_visit`/`monthly` invoicing need a recurring job. */
function requireRecurring(type: string, body: JobCreate | JobUpdate, invoicing: string): void {
  if (type === 'recurring') return;
  if (body.schedule) throw invalidField(['schedule'], `a schedule needs type "recurring" (this job is "${type}")`);
  if (invoicing !== 'manual') throw invalidField(['invoicing'], `invoicing "${invoicing}" needs type "recurring" (this job is "${type}"); one-off jobs are invoiced manually`);
}

export async function createJob(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: JobCreate, horizonDays: number): Promise<JobWrite> {
  const type = body.type ?? 'one-off';
  const status = body.status ?? 'draft';
  requireRecurring(type, body, body.invoicing ?? 'manual');
  const inputs = await loadJobInputs(trx, workspaceId, body, { fields: true });
  validateCustomFields(inputs.defs, body.custom_fields, { create: true }); // D23: before any other check, as before
  if (inputs.missing) await refuseMissing(trx, workspaceId, body);
  // E20: the rule, its times and assignees, and the visits' dates, all checked before anything is written.
  const plan = body.schedule ? await planSeries(trx, workspaceId, body.schedule, [], horizonDays) : null;
  const spans = plan && !STOPPED.has(status) ? [{ span: plan.span(null, plan.stored.starts_on), dates: [] as string[] }] : [];
  for (const s of spans) s.dates = datesOf(s.span, plan!.timeZone);
  if (body.quote_id) await claimQuote(trx, workspaceId, body.quote_id, null);
  const pricing: Pricing = await resolvePricing(trx, workspaceId, null, body);
  const meta: JobWriteMeta = { visits_created: 0, visits_deleted: 0 };
  const detail = await insertJob(
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
      type,
      expected_end_date: body.expected_end_date ?? null,
      expenses: normalizeExpenses(body.expenses ?? []),
      status,
      custom_fields: body.custom_fields ?? null,
      invoicing: body.invoicing ?? 'manual',
      ...pricing,
    },
    {
      refs: inputs.refs,
      fieldDefs: inputs.defs,
      series: plan ? { schedule: plan.stored, generated_through: plan.clock.horizon } : undefined,
      beforeEmit: plan
        ? async (job) => {
            for (const s of spans) s.span.job = job;
            meta.visits_created = await makeVisits(trx, workspaceId, spans, plan.users);
            return withNextVisit(trx, workspaceId, job, plan.clock.today);
          }
        : undefined,
    },
  );
  return { detail, meta };
}

/** A schedule as sent, checked, with the workspace's clock: what a write needs to make its series. */
async function planSeries(trx: Kysely<DB>, workspaceId: number, input: ScheduleInput, skipped: string[], horizonDays: number) {
  const { stored, rule, users } = await scheduleOf(trx, workspaceId, input, skipped);
  const timeZone = await workspaceZone(trx, workspaceId);
  const clock = clockOf(timeZone, horizonDays);
  const span = (job: SeriesJob | null, from: string): SeriesSpan => ({
    job: job ?? { id: 0, number: 0, name: null, status: 'draft' },
    schedule: stored,
    rule,
    from: laterDate(from, stored.starts_on),
    through: clock.horizon,
  });
  return { stored, rule, users, timeZone, clock, span };
}

/** The job with its schedule's `next_visit_on` (E20), read once its visits are written. */
async function withNextVisit(trx: Kysely<DB>, workspaceId: number, job: Job, today: string): Promise<Job> {
  if (!job.schedule) return job;
  return { ...job, schedule: { ...job.schedule, next_visit_on: await nextVisitOn(trx, workspaceId, job.id, today) } };
}

const REF_FIELDS = ['contact_id', 'property_id', 'request_id', 'quote_id', 'salesperson_id'] as const;

/**
 * A partial update (PUT or the status endpoint), answered from the locked read, the
 * references loaded and the updated row. E20/E21: a new schedule replaces the rule
 * from its `effective_from`; `schedule: null` or the type `one-off` ends the series
 * from today; `completed`/`cancelled` stops it after today and another status
 * resumes it from today.
 */
export async function updateJob(trx: Kysely<DB>, workspaceId: number, id: number, body: JobUpdate, horizonDays: number): Promise<JobWrite> {
  const before = await findJobStored(trx, workspaceId, id);
  if (!before) throw notFound('Job');
  const type = body.type ?? before.type;
  const status = body.status ?? before.status;
  requireRecurring(type, body, body.invoicing ?? before.invoicing);
  const inputs =
    body.custom_fields !== undefined || REF_FIELDS.some((f) => body[f] !== undefined)
      ? await loadJobInputs(trx, workspaceId, body, { fields: body.custom_fields !== undefined })
      : null;
  if (inputs) {
    validateCustomFields(inputs.defs, body.custom_fields, { create: false }); // D23
    if (inputs.missing) await refuseMissing(trx, workspaceId, body);
  }
  const series = await seriesChange(trx, workspaceId, before, body, { type, status, horizonDays });
  if (body.quote_id && body.quote_id !== before.quote_id) await claimQuote(trx, workspaceId, body.quote_id, id);
  const pricing = await resolvePricing(trx, workspaceId, pricingOf(before), body);
  const { expenses, schedule: _schedule, ...plain } = omitPricing(body);
  const values = { ...plain, ...(expenses !== undefined ? { expenses: normalizeExpenses(expenses) } : {}), ...pricing };
  const seriesColumns = series.values ? { schedule: scheduleText(series.values.schedule), generated_through: series.values.generated_through } : {};
  let job = await updateJobRow(trx, workspaceId, id, { ...jobCodec.encode(values), ...seriesColumns, updated_at: now() });
  const meta = await series.apply(job);
  if (job.schedule) job = await withNextVisit(trx, workspaceId, job, series.today);
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
  return { detail, meta };
}

/**
 * E20/E21: what an update does to the job's series, decided and checked (the
 * rule, its dates) before anything is written. `values`: the series columns to
 * write (none when they stay); `apply`: deletes and makes the visits once the
 * job's row is updated.
 */
async function seriesChange(
  trx: Kysely<DB>,
  workspaceId: number,
  before: JobStored,
  body: JobUpdate,
  { type, status, horizonDays }: { type: string; status: string; horizonDays: number },
): Promise<{ values: SeriesValues | null; today: string; apply: (job: Job) => Promise<JobWriteMeta> }> {
  const meta: JobWriteMeta = { visits_created: 0, visits_deleted: 0 };
  const had = before.stored;
  const stopped = STOPPED.has(status);
  const ends = body.schedule === null || (type === 'one-off' && had !== null);
  if (body.schedule) {
    // F212: a job's first rule starts its series at `starts_on`; a replaced rule from today unless told.
    const plan = await planSeries(trx, workspaceId, body.schedule, had?.skipped_dates ?? [], horizonDays);
    const from = body.schedule.effective_from ?? (had ? plan.clock.today : plan.stored.starts_on);
    const span = plan.span(null, from);
    const dates = stopped ? [] : datesOf(span, plan.timeZone);
    return {
      values: { schedule: plan.stored, generated_through: plan.clock.horizon },
      today: plan.clock.today,
      apply: async (job) => {
        if (had) meta.visits_deleted = await dropVisits(trx, workspaceId, job.id, from);
        span.job = job;
        meta.visits_created = await makeVisits(trx, workspaceId, [{ span, dates }], plan.users);
        return meta;
      },
    };
  }
  if (!had) return { values: ends ? { schedule: null, generated_through: null } : null, today: '', apply: async () => meta };
  const timeZone = await workspaceZone(trx, workspaceId);
  const clock = clockOf(timeZone, horizonDays);
  if (ends) {
    return {
      values: { schedule: null, generated_through: null },
      today: clock.today,
      apply: async (job) => ({ ...meta, visits_deleted: await dropVisits(trx, workspaceId, job.id, clock.today) }),
    };
  }
  const wasStopped = STOPPED.has(before.status);
  if (stopped && !wasStopped) {
    // F213: "later" visits are those after today; today's may be under way.
    return { values: null, today: clock.today, apply: async (job) => ({ ...meta, visits_deleted: await dropVisits(trx, workspaceId, job.id, addDays(clock.today, 1)) }) };
  }
  if (!stopped && wasStopped) {
    const span: SeriesSpan = {
      job: { id: before.id, number: before.number, name: before.name, status },
      schedule: had,
      rule: storedRule(had),
      from: laterDate(clock.today, had.starts_on),
      through: clock.horizon,
    };
    const dates = datesOf(span, timeZone);
    const users = await userRefs(trx, workspaceId, had.assignee_ids);
    return {
      values: { schedule: had, generated_through: clock.horizon },
      today: clock.today,
      apply: async (job) => {
        span.job = job;
        return { ...meta, visits_created: await makeVisits(trx, workspaceId, [{ span, dates }], users) };
      },
    };
  }
  return { values: null, today: clock.today, apply: async () => meta };
}

/**
 * E21: a deleted visit's date joins its job's `skipped_dates`, so no rule makes it
 * again; the job's row is locked first, as every write of its series does.
 */
export async function skipOccurrence(trx: Kysely<DB>, workspaceId: number, jobId: number, date: string): Promise<void> {
  const row = await lockJobSchedule(trx, workspaceId, jobId);
  const schedule = storedSchedule(row?.schedule ?? null);
  if (!schedule || schedule.skipped_dates.includes(date)) return;
  const skipped = [...schedule.skipped_dates, date].sort().slice(-MAX_SKIPPED_DATES); // F214: the oldest go first
  await writeJobSchedule(trx, workspaceId, jobId, scheduleText({ ...schedule, skipped_dates: skipped }) as string, now());
  const job = await findJobDetail(trx, workspaceId, jobId);
  if (job) await emit(trx, workspaceId, 'job_updated', 'jobs', job); // E14: the job's schedule changed
}

/** A14: a member's session reads jobs without line items, totals, expenses or any other money. */
function withoutMoney<T extends Partial<Record<JobMoneyField, unknown>>>(job: T): Omit<T, JobMoneyField> {
  const { expenses, line_items, discount, discount_unit, deposit, deposit_unit, tax_rate, tax_rate_id, total, ...rest } = job;
  return rest;
}

/** A14: a member's job, with its line items as `work_items` (what to do and how much, no money). */
function forMember(job: JobDetail): JobDetailAnswer {
  const work_items = job.line_items.map(({ id, name, description, quantity }) => ({ id, name, description, quantity }));
  return { ...withoutMoney(job), work_items };
}

export type JobsService = CrudService<JobQuery, JobCreate, JobUpdate, JobListItemAnswer, JobDetailAnswer, WithMeta<JobDetailAnswer, JobWriteMeta>>;

/** E20: `POST /jobs/schedule-preview`, the rule's first dates and its description; nothing is read or written but the timezone. */
export async function previewSchedule(db: Kysely<DB>, workspaceId: number, body: SchedulePreviewBody): Promise<SchedulePreview> {
  const rule = ruleOf(body.rrule, ['rrule']);
  const timeZone = await workspaceZone(db, workspaceId);
  return { dates: firstDates(rule, body.starts_on, body.count ?? 10, timeZone), description: describeRule(rule, body.starts_on) };
}

export function jobsService({ db, config }: AppContext): JobsService {
  return {
    list: async (auth, query) => {
      const page = await listJobs(db, auth.workspaceId, query);
      return actsAsMember(auth) ? { ...page, rows: page.rows.map(withoutMoney) } : page;
    },
    get: async (auth, id) => {
      const job = await getJobDetail(db, auth.workspaceId, id);
      return actsAsMember(auth) ? forMember(job) : job;
    },
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        const { detail, meta } = await createJob(trx, auth.workspaceId, auth.userId, body, config.recurringHorizonDays);
        return { data: detail, meta };
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        const { detail, meta } = await updateJob(trx, auth.workspaceId, id, body, config.recurringHorizonDays);
        return { data: detail, meta };
      }),
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
