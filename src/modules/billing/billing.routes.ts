import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { Page } from '../../kernel/schemas.ts';
import { BatchAnswer, BatchBody, BillableWork, BillableWorkQuery } from './billing.schemas.ts';
import { type BatchResult, batchFilters, billBatch, hasBillableWork, listBillableWork } from './billing.service.ts';

// E11 stores the same envelope the route sends.
const batchEnvelope = (r: BatchResult) => ({ success: true as const, data: r.invoices, meta: r.meta });

/** EXTENSIONS E22: the work not billed yet, and the batch that bills it. */
export async function billingRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/billable-work',
    {
      config: { scope: 'invoices:read' },
      schema: {
        tags: ['Invoice'],
        summary: 'List the work done and not billed yet: one row per job, ordered by client then job',
        querystring: BillableWorkQuery,
        response: { 200: Page(BillableWork) },
      },
    },
    async (req) => {
      const page = await listBillableWork(ctx.db, req.auth.workspaceId, req.query);
      return { success: true as const, data: page.rows, pagination: page.pagination };
    },
  );
  app.post(
    '/invoices/batch',
    {
      config: { scope: 'invoices:write', envelope: (r) => batchEnvelope(r as BatchResult) },
      schema: {
        tags: ['Invoice'],
        summary: 'Invoice the billable work: one draft per job, sent to clients with an email when `send` is true',
        body: BatchBody,
        response: { 200: BatchAnswer, 201: BatchAnswer },
      },
    },
    async (req, reply) => {
      const { workspaceId, userId } = req.auth;
      const filters = await batchFilters(ctx.db, workspaceId, req.body);
      // Nothing billable: 200 and nothing written (a batch racing another may still answer 201 with fewer invoices).
      if (!(await hasBillableWork(ctx.db, workspaceId, filters)))
        return reply.code(200).send({ success: true as const, data: [], meta: { created: 0, sent: 0, not_sent: [] } });
      const result = await transact(ctx.db, req.auth, (trx) => billBatch(trx, workspaceId, userId, req.body, filters, ctx.config));
      return reply.code(201).send(batchEnvelope(result));
    },
  );
}
