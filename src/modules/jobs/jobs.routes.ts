import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { transact } from '../../http/transact.ts';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { statusRoute } from '../../http/status-route.ts';
import { Ok } from '../../kernel/schemas.ts';
import {
  JobCreate,
  JobDetail,
  JobDetailAnswer,
  JobListItemAnswer,
  JobQuery,
  JobStatusBody,
  JobUpdate,
  JobWriteMeta,
  SchedulePreview,
  SchedulePreviewBody,
} from './jobs.schemas.ts';
import { jobsService, previewSchedule, updateJob } from './jobs.service.ts';

export async function jobsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // E20: registered before the CRUD routes only for reading order; its path has no id.
  app.post(
    '/jobs/schedule-preview',
    {
      config: { scope: 'jobs:read', successStatus: 200 },
      schema: { tags: ['Job'], summary: "Preview a recurring job's rule: its first dates and description", body: SchedulePreviewBody, response: { 200: Ok(SchedulePreview) } },
    },
    async (req) => ({ success: true as const, data: await previewSchedule(ctx.db, req.auth.workspaceId, req.body) }),
  );
  crudRoutes(fastify, {
    path: '/jobs',
    resource: 'Job',
    scope: 'jobs',
    schemas: { query: JobQuery, create: JobCreate, update: JobUpdate, item: JobListItemAnswer, detail: JobDetailAnswer, meta: JobWriteMeta },
    service: jobsService(ctx),
  });
  statusRoute(fastify, {
    path: '/jobs',
    resource: 'Job',
    scope: 'jobs',
    body: JobStatusBody,
    response: JobDetail,
    handler: (auth, id, body) =>
      transact(ctx.db, auth, async (trx) => (await updateJob(trx, auth.workspaceId, id, { status: body.status }, ctx.config.recurringHorizonDays)).detail),
  });
}
