import { Command, InvalidArgumentError, Option } from 'commander';
import { dayMs, zonedDate } from '../domain/zoned-time.ts';
import { claimRun, runDocumentsDay } from '../modules/lifecycle/daily-run.ts';
import { claimRemindersRun, sendDocumentReminders } from '../modules/automations/reminders.ts';
import { RECURRING_DAILY_JOB, runRecurringDay } from '../modules/jobs/recurring-daily.ts';
import { loadConfig } from '../config.ts';
import { jsonOption, print, requireWorkspace, withDatabase, workspaceOption } from './common.ts';

interface DailyOpts {
  workspace: number;
  date?: string;
  json?: boolean;
}

/** A real calendar date, YYYY-MM-DD. */
function parseDate(value: string): string {
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || new Date(dayMs(v)).toISOString().slice(0, 10) !== v) throw new InvalidArgumentError('date must be YYYY-MM-DD');
  return v;
}

/**
 * OPERATOR.md `fieldwork daily` (EXTENSIONS E5): runs a workspace's documents
 * run for a day now and prints what it changed. It also records the day as run,
 * so the worker does not run it again; a second run changes nothing anyway.
 */
export function dailyCommand(): Command {
  return new Command('daily')
    .description("run a workspace's daily run now: recurring jobs' visits made through the horizon, overdue invoices, expired quotes, scheduled invoices sent, the day's quote follow-ups and invoice reminders")
    .addOption(workspaceOption())
    .addOption(new Option('--date <YYYY-MM-DD>', "the day (default: today in the workspace's time zone)").argParser(parseDate))
    .addOption(jsonOption())
    .action(async (opts: DailyOpts) => {
      const result = await withDatabase(async (db) => {
        const w = await requireWorkspace(db, opts.workspace);
        const date = opts.date ?? zonedDate(Date.now(), w.timezone);
        const config = loadConfig();
        return db.transaction().execute(async (trx) => {
          // E20 first, as the worker runs them: the series made through the horizon.
          await claimRun(trx, w.id, date, RECURRING_DAILY_JOB);
          const { visits_created } = await runRecurringDay(trx, { id: w.id, timezone: w.timezone }, date, config.recurringHorizonDays);
          await claimRun(trx, w.id, date);
          const documents = await runDocumentsDay(trx, w.id, date, config);
          // E24: the day's quote follow-ups and invoice reminders at once, whatever the hour; each only once.
          await claimRemindersRun(trx, w.id, date);
          // OPERATOR.md: `reminders_sent` lists the messages it queued (each reminder's email, and its SMS where allowed).
          const reminders = await sendDocumentReminders(trx, w.id, date, config);
          return { ...documents, reminders_sent: reminders.flatMap((r) => r.message_ids), visits_created };
        });
      });
      const line = (label: string, ids: number[]) => `${label}: ${ids.length ? ids.join(', ') : 'none'}`;
      print(opts, {
        json: { ...result },
        text: [
          line('Overdue invoices', result.overdue_invoices),
          line('Expired quotes', result.expired_quotes),
          line('Sent invoices', result.sent_invoices),
          line('Reminder messages', result.reminders_sent),
          `Visits created: ${result.visits_created}`,
        ].join('\n'),
      });
    });
}
