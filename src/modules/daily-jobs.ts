import type { DailyJob } from '../outbox/worker.ts';
import { runDocumentsDaily } from './lifecycle/daily-run.ts';
import { runAppointmentsSoon } from './notifications-internal/appointments-soon.ts';
import { runRecurringDaily } from './jobs/recurring-daily.ts';

/**
 * The jobs the worker runs once per workspace and local day; main.ts and `fieldwork worker` hand them over.
 * E20's visits come before the reminders, so a visit the run makes for tomorrow is reminded of the same day.
 */
export const dailyJobs: readonly DailyJob[] = [runRecurringDaily, runAppointmentsSoon, runDocumentsDaily];
