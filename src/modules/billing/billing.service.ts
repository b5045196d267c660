import type { Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import { now } from '../../db/json.ts';
import { reserveNumbers } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import type { DB } from '../../db/schema.ts';
import { formatDate } from '../../domain/format.ts';
import { computeTotals, copyLineItems, type LineItem } from '../../domain/line-items.ts';
import { AppError } from '../../kernel/errors.ts';
import type { HubLinkConfig } from '../hub/hub.service.ts';
import { workspaceToday } from '../invoices/invoices.repo.ts';
import type { InvoiceDetail } from '../invoices/invoices.schemas.ts';
import { createInvoice, getInvoiceDetail } from '../invoices/invoices.service.ts';
import { carryDeposit } from '../invoices/payments.service.ts';
import { queueNotification } from '../notifications/notifications.service.ts';
import {
  type BillableFilters,
  type BillableJob,
  billableJobs,
  countBillableJobs,
  lockOneOffToBill,
  lockVisitsOfJobs,
  lockVisitsToBill,
  markBilled,
  unbilledVisitsOf,
  type Visit,
} from './billing.repo.ts';
import type { BatchBody, BillableWork, BillableWorkQuery } from './billing.schemas.ts';

// EXTENSIONS E22: billing the work done. One function bills jobs (billJobs): the
// visits it bills are locked and then marked in one conditional write in the
// invoice's own transaction, so two batches, a batch and a completed visit, or two
// processes bill each visit once: the second finds nothing left and makes nothing.

/**
 * What an invoice for some visits of a job carries: for each visit in date order,
 * each of the job's line items (new ids), the visit's date at the start of the
 * description. A one-off job's are its own line items (as E6).
 */
export function linesFor(job: Pick<BillableJob, 'type' | 'line_items'>, visits: readonly Pick<Visit, 'date'>[]): LineItem[] {
  if (job.type !== 'recurring') return copyLineItems(job.line_items);
  return visits.flatMap((v) =>
    job.line_items.map((item) => ({
      ...item,
      id: randomUUID(),
      description: item.description ? `${formatDate(v.date)}: ${item.description}` : formatDate(v.date),
    })),
  );
}

/** D7 on those lines with the job's discount and tax: what the invoice's total will be. */
const amountOf = (job: BillableJob, visits: readonly Visit[]): number => computeTotals(linesFor(job, visits), job).total / 100;

/** `GET /billable-work`: one row per billable job, the standard list envelope. */
export async function listBillableWork(db: Kysely<DB>, workspaceId: number, q: BillableWorkQuery) {
  const through = q.through ?? (await workspaceToday(db, workspaceId));
  const filters: BillableFilters = { through, contact_ids: q.contact_id ? [q.contact_id] : undefined };
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 25;
  const [jobs, total] = await Promise.all([
    billableJobs(db, workspaceId, filters, { limit: perPage, offset: (page - 1) * perPage }),
    countBillableJobs(db, workspaceId, filters),
  ]);
  const visits = groupByJob(
    await unbilledVisitsOf(
      db,
      workspaceId,
      jobs.filter((j) => j.type === 'recurring').map((j) => j.id),
      through,
    ),
  );
  const rows: BillableWork[] = jobs.map((job) => {
    const own = job.type === 'recurring' ? (visits.get(job.id) ?? []) : [];
    return {
      job_id: job.id,
      contact_id: job.contact_id,
      contact: job.contact,
      property_id: job.property_id,
      name: job.name,
      visits: own.map((v) => ({ id: v.id, date: v.date })),
      amount: amountOf(job, own),
    };
  });
  return { rows, pagination: { page, per_page: perPage, total_pages: Math.ceil(total / perPage) } };
}

function groupByJob(visits: Visit[]): Map<number, Visit[]> {
  const out = new Map<number, Visit[]>();
  for (const v of visits) {
    const list = out.get(v.job_id);
    if (list) list.push(v);
    else out.set(v.job_id, [v]);
  }
  return out;
}

export interface BillOptions {
  /** The visits to bill: those through a date, or exactly these (a per-visit invoice). */
  pick: { through: string } | { ids: number[] };
  date: string;
  payment_terms?: BatchBody['payment_terms'];
}

/** A job and what it has left to bill, locked: its visits (none for a one-off job). */
interface LockedWork {
  job: BillableJob;
  visits: Visit[];
}

/**
 * Locks what each job has left to bill, all of it before any invoice number is
 * taken: every biller (a batch, the monthly run, a completed per_visit visit) locks
 * visits first and the invoice counter last, so none waits for a visit while holding
 * the counter another waits for (the deadlock of F289).
 */
async function lockWork(trx: Kysely<DB>, workspaceId: number, jobs: readonly BillableJob[], pick: BillOptions['pick']): Promise<LockedWork[]> {
  const recurring = jobs.filter((j) => j.type === 'recurring').map((j) => j.id);
  const visits =
    'through' in pick
      ? await lockVisitsOfJobs(trx, workspaceId, recurring, pick.through)
      : new Map([[recurring[0], await lockVisitsToBill(trx, workspaceId, recurring[0] ?? 0, pick)]]); // a per_visit visit: one job
  const out: LockedWork[] = [];
  for (const job of jobs) {
    if (job.type === 'recurring') {
      const own = visits.get(job.id);
      if (own?.length) out.push({ job, visits: own });
    } else if (await lockOneOffToBill(trx, workspaceId, job.id)) out.push({ job, visits: [] });
  }
  return out;
}

/**
 * Bills jobs in the caller's transaction: per job with work left, a `draft` invoice
 * (E1 number, E2 due date, `job_id`, the visits as `event_ids`) for its unbilled
 * visits, or for the one-off job itself; the quote's deposit carried onto it (E23).
 * A job with nothing left to bill (another biller came first) gets none. The
 * invoices' numbers are reserved in one counter write, after every lock. Yields
 * each invoice as it is made, so a batch sends it while its rows are fresh.
 */
export async function* billJobs(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  jobs: readonly BillableJob[],
  opts: BillOptions,
): AsyncGenerator<InvoiceDetail> {
  const work = await lockWork(trx, workspaceId, jobs, opts.pick);
  if (!work.length) return;
  let number = await reserveNumbers(trx, workspaceId, 'invoices', work.length);
  for (const w of work) yield await billLocked(trx, workspaceId, userId, w, opts, number++);
}

async function billLocked(trx: Kysely<DB>, workspaceId: number, userId: string | null, { job, visits }: LockedWork, opts: BillOptions, number: number): Promise<InvoiceDetail> {
  const invoice = await createInvoice(
    trx,
    workspaceId,
    userId,
    {
      contact_id: job.contact_id,
      property_id: job.property_id,
      name: job.name,
      line_items: linesFor(job, visits),
      discount: job.discount,
      discount_unit: job.discount_unit,
      tax_rate: job.tax_rate,
      tax_rate_id: job.tax_rate_id,
      job_id: job.id,
      quote_id: job.quote_id,
      date: opts.date,
      payment_terms: opts.payment_terms ?? 'due_on_receipt',
      status: 'draft',
      event_ids: visits.map((v) => v.id),
    },
    { referencesRead: true, number },
  ); // the job's own references and its locked visits: D11 holds already
  if (visits.length) {
    const billed = await markBilled(
      trx,
      workspaceId,
      invoice.id,
      visits.map((v) => v.id),
      now(),
    );
    // The visits are locked: a count short of them means a writer that ignores the lock; roll back.
    if (billed !== visits.length) throw new AppError(409, 'Visits were billed by another invoice; try again');
  }
  return carryDeposit(trx, workspaceId, userId, invoice);
}

export interface BatchResult {
  invoices: InvoiceDetail[];
  meta: { created: number; sent: number; not_sent: number[] };
}

/** The batch's filters, `through` defaulting to today in the workspace's time zone; D11: every id in the workspace. */
export async function batchFilters(db: Kysely<DB>, workspaceId: number, body: BatchBody): Promise<BillableFilters> {
  await checkReferences(db, workspaceId, { ids: { job_ids: ['jobs', body.job_ids], contact_ids: ['contacts', body.contact_ids] } });
  return { through: body.through ?? (await workspaceToday(db, workspaceId)), job_ids: body.job_ids, contact_ids: body.contact_ids };
}

export const hasBillableWork = async (db: Kysely<DB>, workspaceId: number, filters: BillableFilters): Promise<boolean> =>
  (await countBillableJobs(db, workspaceId, filters)) > 0;

/**
 * `POST /invoices/batch`, in the caller's transaction: one draft per billable job;
 * with `send`, each is sent as `invoice_to_customer` (E10) unless its client has no
 * email, and those are listed in `not_sent`.
 */
export async function billBatch(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  body: BatchBody,
  filters: BillableFilters,
  hub: HubLinkConfig,
): Promise<BatchResult> {
  const date = await workspaceToday(trx, workspaceId);
  const jobs = await billableJobs(trx, workspaceId, filters);
  const invoices: InvoiceDetail[] = [];
  const notSent: number[] = [];
  let sent = 0;
  for await (let invoice of billJobs(trx, workspaceId, userId, jobs, { pick: { through: filters.through }, date, payment_terms: body.payment_terms })) {
    if (body.send) {
      const delivered = await sendInvoice(trx, workspaceId, userId, invoice.id, hub);
      if (delivered) {
        invoice = delivered;
        sent++;
      } else notSent.push(invoice.id);
    }
    invoices.push(invoice);
  }
  return { invoices, meta: { created: invoices.length, sent, not_sent: notSent } };
}

/** E10's `invoice_to_customer`; undefined when the client has no email (checked before anything is written). */
async function sendInvoice(trx: Kysely<DB>, workspaceId: number, userId: string | null, id: number, hub: HubLinkConfig): Promise<InvoiceDetail | undefined> {
  try {
    await queueNotification(trx, { workspaceId, userId }, { type: 'invoice_to_customer', module_id: id }, hub);
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return undefined;
    throw err;
  }
  return getInvoiceDetail(trx, workspaceId, id);
}

/**
 * E22 `per_visit`: a visit of such a job that becomes `completed` gets its own draft
 * invoice, in the status change's transaction; once, as billJobs bills a visit once.
 */
export async function billCompletedVisit(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  visit: { id: number; job_id: number | null; status: string },
): Promise<InvoiceDetail | undefined> {
  if (visit.status !== 'completed' || visit.job_id === null) return undefined;
  const [job] = await billableJobs(trx, workspaceId, { through: '9999-12-31', job_ids: [visit.job_id], invoicing: 'per_visit' });
  if (!job) return undefined;
  for await (const invoice of billJobs(trx, workspaceId, userId, [job], { pick: { ids: [visit.id] }, date: await workspaceToday(trx, workspaceId) })) return invoice;
  return undefined;
}
