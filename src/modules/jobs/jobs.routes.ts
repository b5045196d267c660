import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { JobCreate, JobDetail, JobDetailAnswer, JobListItemAnswer, JobQuery, JobStatusBody, JobUpdate } from './jobs.schemas.ts';
import { jobsService, updateJob } from './jobs.service.ts';

export async function jobsRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/jobs',
    resource: 'Job',
    scope: 'jobs',
    schemas: { query: JobQuery, create: JobCreate, update: JobUpdate, item: JobListItemAnswer, detail: JobDetailAnswer },
    service: jobsService(ctx),
  });
  statusRoute(app, {
    path: '/jobs',
    resource: 'Job',
    scope: 'jobs',
    body: JobStatusBody,
    response: JobDetail,
    handler: (auth, id, body) => transact(ctx.db, auth, (trx) => updateJob(trx, auth.workspaceId, id, { status: body.status })),
  });
}
