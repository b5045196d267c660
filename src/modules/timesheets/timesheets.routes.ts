import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { Timesheet, TimesheetDetail, TimesheetQuery, TimesheetStatusBody } from './timesheets.schemas.ts';
import { timesheetsService } from './timesheets.service.ts';

/** SPEC: list, get and status only; no create, update or delete route exists (404 Not found). */
export async function timesheetsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = timesheetsService(ctx);
  const tags = ['Timesheet'];
  const notFound = { id: 'Timesheet' }; // D5, D32
  const read = { scope: 'timesheets:read', notFound };
  const write = { scope: 'timesheets:write', notFound };

  app.get(
    '/timesheets',
    { config: read, schema: { tags, summary: 'List timesheets', querystring: TimesheetQuery, response: { 200: Page(Timesheet) } } },
    async (req) => {
      const { rows, pagination } = await service.list(req.auth, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  app.get(
    '/timesheets/:id',
    { config: read, schema: { tags, summary: 'Get a timesheet with its time entries and user', params: IdParams, response: { 200: Ok(TimesheetDetail) } } },
    async (req) => ({ success: true as const, data: await service.get(req.auth, req.params.id) }),
  );

  app.put(
    '/timesheets/:id/status',
    {
      config: write,
      schema: { tags, summary: "Set a timesheet's status", params: IdParams, body: TimesheetStatusBody, response: { 200: Ok(TimesheetDetail) } },
    },
    async (req) => ({ success: true as const, data: await service.setStatus(req.auth, req.params.id, req.body) }),
  );
}
