import type { DailyJob } from '../outbox/worker.ts';
import { runDocumentReminders, runVisitReminders } from './automations/reminders.ts';
import { runDocumentsDaily } from './lifecycle/daily-run.ts';
import { runAppointmentsSoon } from './notifications-internal/appointments-soon.ts';
import { runRecurringDaily } from './jobs/recurring-daily.ts';

/**
 * The jobs the worker runs at each pass (every minute); main.ts and `fieldwork worker` hand them over.
 * All but the visit reminders run once per workspace and local day (runDaily); E24's visit
 * reminders look at every pass for the visits whose reminder time has come. E20's visits come
 * first, so a visit the run makes for tomorrow is reminded of the same day.
 */
export const dailyJobs: readonly DailyJob[] = [runRecurringDaily, runAppointmentsSoon, runDocumentsDaily, runDocumentReminders, runVisitReminders];
