import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { TimeEntry, TimeEntryCreate, TimeEntryQuery, TimeEntryUpdate } from './time-entries.schemas.ts';
import { timeEntriesService } from './time-entries.service.ts';

export async function timeEntriesRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/time-entries',
    resource: 'Time entry', // D32: "Time entry not found"
    scope: 'timesheets', // SPEC: time entries use the timesheets scopes
    schemas: { query: TimeEntryQuery, create: TimeEntryCreate, update: TimeEntryUpdate, item: TimeEntry, detail: TimeEntry },
    service: timeEntriesService(ctx),
  });
}
