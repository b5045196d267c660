import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import { locked } from '../../db/locks.ts';
import type { DB } from '../../db/schema.ts';
import { formatDate } from '../../domain/format.ts';
import { addDays } from '../../domain/weeks.ts';
import { dayMs, zonedDate, zonedInstant } from '../../domain/zoned-time.ts';
import { AppError } from '../../kernel/errors.ts';
import { type DailyLog, type DailyWorkspace, runDaily } from '../../outbox/schedule.ts';
import type { HubLinkConfig } from '../hub/hub.service.ts';
import { invoiceOf, invoices } from '../invoices/invoices.repo.ts';
import { queueNotification, type Send } from '../notifications/notifications.service.ts';
import { quotes } from '../quotes/quotes.repo.ts';
import { findWorkspace, settingsOf } from '../workspace/workspace.service.ts';
import { automationsOf } from './automations.rules.ts';

// EXTENSIONS E24: the automatic reminders. Quote follow-ups and invoice reminders
// go out in a daily run at 09:00 local time (runDaily's `startsAt`); visit reminders
// in a pass every minute of the worker. Each is given at most once: a
// `customer_reminders` row per (workspace, type, record, step, anchor) is inserted
// in the transaction that queues the message, right after the record was locked and
// its state checked (F271), so an answer, payment, void or delete committed before
// the run is seen, and one made during it waits for the lock.

export const REMINDERS_DAILY_JOB = 'customer_reminders';
/** E24: the daily run's local time. */
export const REMINDERS_START = '09:00';

/** `fieldwork daily --json`'s `reminders_sent`. */
export interface ReminderSent {
  type: 'quote_follow_up' | 'invoice_reminder';
  module_id: number;
  /** Days after sending (follow-ups) or from the due date (reminders). */
  step: number;
  /** The `messages` rows it queued: the email, and the SMS where allowed. */
  message_ids: number[];
}

export interface ReminderLog {
  warn(obj: object, msg: string): void;
}

const REMINDED_INVOICE_STATUSES = ['sent', 'partially_paid', 'overdue'];
/** A visit not cancelled, started or done (F273). */
const REMINDED_VISIT_STATUSES = ['scheduled', 'pending'];

const daysBetween = (from: string, to: string) => Math.round((dayMs(to) - dayMs(from)) / 86_400_000);

/**
 * Records the reminder and queues its messages (their ids), or does nothing (null) when this step was
 * already given. A record without a client email (D19) keeps its row: the step is
 * spent, it is logged, and no later run tries it again (F274).
 */
async function give(
  trx: Kysely<DB>,
  workspaceId: number,
  send: Send,
  step: number,
  anchor: string,
  hub: HubLinkConfig,
  log?: ReminderLog,
): Promise<number[] | null> {
  const claimed = await trx
    .insertInto('customer_reminders')
    .values({ workspace_id: workspaceId, type: send.type, document_id: send.module_id, step, anchor, created_at: now() })
    .onConflict((oc) => oc.columns(['workspace_id', 'type', 'document_id', 'step', 'anchor']).doNothing())
    .returning('document_id')
    .executeTakeFirst();
  if (!claimed) return null;
  try {
    return (await queueNotification(trx, { workspaceId, userId: null }, send, hub)).message_ids;
  } catch (err) {
    // Checked before anything is written (the client's email): the run goes on.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    log?.warn({ workspace_id: workspaceId, type: send.type, module_id: send.module_id, reason: err.message }, 'reminder not sent');
    return null;
  }
}

/** The `awaiting_response` quotes with the instant each was last sent: moved to `awaiting_response`, or emailed as `quote_to_customer`. */
function awaitingQuotes(trx: Kysely<DB>, workspaceId: number) {
  return trx
    .selectFrom('quotes as q')
    .select((eb) => [
      'q.id',
      eb
        .selectFrom('quote_status_changes as c')
        .select((s) => s.fn.max('c.created_at').as('at'))
        .whereRef('c.workspace_id', '=', 'q.workspace_id')
        .whereRef('c.quote_id', '=', 'q.id')
        .where('c.status', '=', 'awaiting_response')
        .as('moved_at'),
      eb
        .selectFrom('messages as m')
        .select((s) => s.fn.max('m.created_at').as('at'))
        .whereRef('m.workspace_id', '=', 'q.workspace_id')
        .where('m.module_type', '=', 'quote')
        .whereRef('m.module_id', '=', 'q.id')
        .where('m.type', '=', 'quote_to_customer')
        .as('emailed_at'),
    ])
    .where('q.workspace_id', '=', workspaceId)
    .where('q.status', '=', 'awaiting_response')
    .orderBy('q.id')
    .execute();
}

/**
 * The quote follow-ups and invoice reminders of one workspace and local date, inside
 * the caller's transaction (the daily run's, or `fieldwork daily`'s). Only the steps
 * that fall on `date` exactly: a day missed is not made up later (never too late).
 */
export async function sendDocumentReminders(trx: Kysely<DB>, workspaceId: number, date: string, hub: HubLinkConfig, log?: ReminderLog): Promise<ReminderSent[]> {
  const w = await findWorkspace(trx, workspaceId);
  if (!w) return [];
  const { quote_follow_up_days: quoteDays, invoice_reminder_days: invoiceDays } = automationsOf(settingsOf(w));
  const sent: ReminderSent[] = [];

  if (quoteDays.length) {
    for (const q of await awaitingQuotes(trx, workspaceId)) {
      const last = [q.moved_at, q.emailed_at].filter((t): t is string => typeof t === 'string').sort().at(-1);
      if (!last) continue;
      const sentOn = zonedDate(Date.parse(last), w.timezone);
      const step = daysBetween(sentOn, date);
      if (!quoteDays.includes(step)) continue;
      // The state under the lock: answered (or deleted) a moment ago means no follow-up.
      const row = await quotes.find(trx, workspaceId, q.id, { lock: true });
      if (row?.status !== 'awaiting_response') continue;
      const values = { sent_on: formatDate(sentOn), days_since_sent: String(step) };
      const ids = await give(trx, workspaceId, { type: 'quote_follow_up', module_id: q.id, values }, step, sentOn, hub, log);
      if (ids) sent.push({ type: 'quote_follow_up', module_id: q.id, step, message_ids: ids });
    }
  }

  if (invoiceDays.length) {
    const dueDates = invoiceDays.map((d) => addDays(date, -d));
    const candidates = await trx
      .selectFrom('invoices')
      .select(['id', 'due_date'])
      .where('workspace_id', '=', workspaceId)
      .where('status', 'in', REMINDED_INVOICE_STATUSES)
      .where('due_date', 'in', dueDates)
      .orderBy('id')
      .execute();
    for (const c of candidates) {
      const row = await invoices.find(trx, workspaceId, c.id, { lock: true });
      if (!row || !REMINDED_INVOICE_STATUSES.includes(row.status) || row.due_date !== c.due_date || !c.due_date) continue;
      if (invoiceOf(row).balance <= 0) continue; // paid in full
      const step = daysBetween(c.due_date, date);
      const values = { days_overdue: step > 0 ? String(step) : '' };
      const ids = await give(trx, workspaceId, { type: 'invoice_reminder', module_id: c.id, values }, step, c.due_date, hub, log);
      if (ids) sent.push({ type: 'invoice_reminder', module_id: c.id, step, message_ids: ids });
    }
  }
  return sent;
}

/** Claims the reminders' run of a workspace and date (as `fieldwork daily` claims the documents' run): false when it already ran. */
export async function claimRemindersRun(trx: Kysely<DB>, workspaceId: number, date: string): Promise<boolean> {
  const claimed = await trx
    .insertInto('scheduled_runs')
    .values({ workspace_id: workspaceId, job: REMINDERS_DAILY_JOB, run_date: date, created_at: now() })
    .onConflict((oc) => oc.columns(['workspace_id', 'job', 'run_date']).doNothing())
    .returning('workspace_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** One pass of the daily reminders (the worker calls it every minute; a workspace runs once a day, from 09:00 local). */
export const runDocumentReminders = (db: Kysely<DB>, nowMs: number, log: (DailyLog & ReminderLog) | undefined, hub: HubLinkConfig): Promise<number> =>
  runDaily(
    db,
    REMINDERS_DAILY_JOB,
    nowMs,
    async (trx, w: DailyWorkspace, date) => {
      await sendDocumentReminders(trx, w.id, date, hub, log);
    },
    log,
    REMINDERS_START,
  );

/** When a visit's reminder is due and when the visit starts (an all-day visit, or one without a time, at 09:00). */
export function visitReminderTimes(e: { start_date: string; start_time: string | null; all_day: number }, hours: number, timeZone: string | null) {
  const start = zonedInstant(e.start_date, e.all_day || !e.start_time ? REMINDERS_START : e.start_time, timeZone);
  return { start, remindAt: start - hours * 3_600_000 };
}

/**
 * The visit reminders of every workspace that has them on: each visit whose reminder
 * time has come and that has not started yet, so a visit created or moved inside its
 * reminder window gets one at the next pass. The step is the hours, the anchor the
 * start instant: a visit moved to another time is reminded again (F273). Each in its
 * own transaction; returns how many were queued.
 */
export async function runVisitReminders(db: Kysely<DB>, nowMs: number, log: (DailyLog & ReminderLog) | undefined, hub: HubLinkConfig): Promise<number> {
  const workspaces = await db.selectFrom('workspaces').select(['id', 'timezone', 'settings']).orderBy('id').execute();
  let queued = 0;
  for (const w of workspaces) {
    const hours = automationsOf(settingsOf(w)).visit_reminder_hours;
    if (!hours) continue;
    try {
      // Candidates by local date (the index), then the exact window by instant.
      const from = zonedDate(nowMs, w.timezone);
      const to = zonedDate(nowMs + hours * 3_600_000, w.timezone);
      const candidates = await db
        .selectFrom('events')
        .select(['id', 'start_date', 'start_time', 'all_day'])
        .where('workspace_id', '=', w.id)
        .where('type', '=', 'appointment')
        .where('status', 'in', REMINDED_VISIT_STATUSES)
        .where('start_date', '>=', from)
        .where('start_date', '<=', to)
        .orderBy('id')
        .execute();
      for (const c of candidates) {
        const { start, remindAt } = visitReminderTimes(c, hours, w.timezone);
        if (remindAt > nowMs || start <= nowMs) continue;
        const given = await db.transaction().execute(async (trx) => {
          const e = await locked(
            trx,
            trx.selectFrom('events').select(['id', 'start_date', 'start_time', 'all_day', 'status', 'type']).where('workspace_id', '=', w.id).where('id', '=', c.id),
          ).executeTakeFirst();
          if (e?.type !== 'appointment' || !REMINDED_VISIT_STATUSES.includes(e.status)) return null;
          const now = visitReminderTimes(e, hours, w.timezone);
          if (now.remindAt > nowMs || now.start <= nowMs) return null; // moved meanwhile
          return give(trx, w.id, { type: 'appointment_reminder', module_id: e.id }, hours, new Date(now.start).toISOString(), hub, log);
        });
        if (given) queued++;
      }
    } catch (err) {
      log?.error({ err, workspace_id: w.id }, 'visit reminders failed; they are tried again at the next pass');
    }
  }
  return queued;
}
