import { type Kysely, sql } from 'kysely';
import { now } from '../../db/json.ts';
import { locked } from '../../db/locks.ts';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../kernel/errors.ts';
import { type DailyLog, type DailyWorkspace, runDaily } from '../../outbox/schedule.ts';
import type { HubLinkConfig } from '../hub/hub.service.ts';
import { emitMany } from '../../outbox/emit.ts';
import { findInvoiceDetails } from '../invoices/invoices.repo.ts';
import { queueNotification } from '../notifications/notifications.service.ts';
import { findQuoteDetails } from '../quotes/quotes.repo.ts';

// EXTENSIONS E5: the documents' daily run, once per workspace and local day (D22's
// runDaily): scheduled invoices due to go out are sent as `invoice_to_customer`
// (and so become `sent`, with D16's `invoice_sent`); `sent` and `partially_paid`
// invoices past their due date become `overdue`; `awaiting_response` quotes past
// `expire_on` become `expired`. Each move is one statement for the workspace, and
// only rows still in the starting status move, so a second run of the same day
// (the CLI, a restart, another worker) changes nothing.

export const DOCUMENTS_DAILY_JOB = 'documents_daily';

export interface DailyRunResult {
  overdue_invoices: number[];
  expired_quotes: number[];
  sent_invoices: number[];
}

export interface DailyRunLog {
  warn(obj: object, msg: string): void;
}

/** The run for one workspace and local date `date` (YYYY-MM-DD), inside the caller's transaction. */
/** `hub`: PUBLIC_URL and HUB_LINK_TTL, for the hub link of each scheduled invoice's email (E7). */
export async function runDocumentsDay(trx: Kysely<DB>, workspaceId: number, date: string, hub: HubLinkConfig, log?: DailyRunLog): Promise<DailyRunResult> {
  const at = now();
  // Locked: a concurrent run waits here, then sees these rows no longer `scheduled`.
  const scheduled = await locked(
    trx,
    trx
      .selectFrom('invoices')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'scheduled')
      .where('send_on', '<=', date)
      .orderBy('id'),
  ).execute();
  const sent: number[] = [];
  for (const { id } of scheduled) {
    try {
      await queueNotification(trx, { workspaceId, userId: null }, { type: 'invoice_to_customer', module_id: id }, hub);
      sent.push(id);
    } catch (err) {
      // D19/D32: no contact with an email. Checked before anything is written, so the
      // run goes on; the invoice stays scheduled and is tried again the next day.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      log?.warn({ workspace_id: workspaceId, invoice_id: id, reason: err.message }, 'scheduled invoice not sent');
    }
  }

  const overdue = await trx
    .updateTable('invoices')
    .set({ status: 'overdue', updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('status', 'in', ['sent', 'partially_paid'])
    .where('due_date', '<', date)
    .returning('id')
    .execute();

  // Every quote status change is kept, as the status endpoint keeps it (no acting
  // user): the history rows first, from the same condition, in one set-based statement
  // (a VALUES list per quote would pass SQLite's parameter limit at 10,000 quotes).
  await trx
    .insertInto('quote_status_changes')
    .columns(['workspace_id', 'quote_id', 'status', 'comment', 'user_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('quotes')
        .select((s) => ['quotes.workspace_id', 'quotes.id', s.val('expired').as('status'), sql<null>`null`.as('comment'), sql<null>`null`.as('user_id'), s.val(at).as('created_at')])
        .where('quotes.workspace_id', '=', workspaceId)
        .where('quotes.status', '=', 'awaiting_response')
        .where('quotes.expire_on', '<', date),
    )
    .execute();
  const expired = await trx
    .updateTable('quotes')
    .set({ status: 'expired', updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'awaiting_response')
    .where('expire_on', '<', date)
    .returning('id')
    .execute();

  const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);
  // E14: each moved record's `*_updated`, its detail read in a few statements and emitted in bulk.
  if (overdue.length) await emitMany(trx, workspaceId, 'invoice_updated', 'invoices', await findInvoiceDetails(trx, workspaceId, ids(overdue)));
  if (expired.length) await emitMany(trx, workspaceId, 'quote_updated', 'quotes', await findQuoteDetails(trx, workspaceId, ids(expired)));
  return { overdue_invoices: ids(overdue), expired_quotes: ids(expired), sent_invoices: sent };
}

/** Claims the run of `job` for the workspace and date in `scheduled_runs`: false when it already ran (or runs). */
export async function claimRun(trx: Kysely<DB>, workspaceId: number, date: string, job = DOCUMENTS_DAILY_JOB): Promise<boolean> {
  const claimed = await trx
    .insertInto('scheduled_runs')
    .values({ workspace_id: workspaceId, job, run_date: date, created_at: now() })
    .onConflict((oc) => oc.columns(['workspace_id', 'job', 'run_date']).doNothing())
    .returning('workspace_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** One pass of the daily job (the worker calls it every minute). */
export const runDocumentsDaily = (db: Kysely<DB>, nowMs: number, log: (DailyLog & DailyRunLog) | undefined, hub: HubLinkConfig): Promise<number> =>
  runDaily(
    db,
    DOCUMENTS_DAILY_JOB,
    nowMs,
    async (trx, w: DailyWorkspace, date) => {
      await runDocumentsDay(trx, w.id, date, hub, log);
    },
    log,
  );
