import type { DailyJob } from '../outbox/worker.ts';
import { runDocumentsDaily } from './lifecycle/daily-run.ts';
import { runAppointmentsSoon } from './notifications-internal/appointments-soon.ts';

/** The jobs the worker runs once per workspace and local day; main.ts and `fieldwork worker` hand them over. */
export const dailyJobs: readonly DailyJob[] = [runAppointmentsSoon, runDocumentsDaily];
