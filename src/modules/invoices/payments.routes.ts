import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { transact } from '../../http/transact.ts';
import { Deleted, IdParams, Ok } from '../../kernel/schemas.ts';
import { Type } from 'typebox';
import { Payment, PaymentCreate, PaymentParams } from './payments.schemas.ts';
import { addPayment, listPayments, voidPayment } from './payments.service.ts';

/** EXTENSIONS E3: `/invoices/:id/payments`. */
export async function paymentsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Invoice'];
  const notFound = { id: 'Invoice', paymentId: 'Payment' }; // D5: a non-integer path id answers the matching "not found"

  app.post(
    '/invoices/:id/payments',
    {
      config: { scope: 'invoices:write', notFound },
      schema: { tags, summary: 'Record a payment against an invoice', params: IdParams, body: PaymentCreate, response: { 201: Ok(Payment) } },
    },
    async (req, reply) => {
      const data = await transact(ctx.db, req.auth, (trx) => addPayment(trx, req.auth.workspaceId, req.auth.userId, req.params.id, req.body));
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.get(
    '/invoices/:id/payments',
    {
      config: { scope: 'invoices:read', notFound },
      schema: { tags, summary: "List an invoice's payments, oldest paid_on first", params: IdParams, response: { 200: Ok(Type.Array(Payment)) } },
    },
    async (req) => ({ success: true as const, data: await listPayments(ctx.db, req.auth.workspaceId, req.params.id) }),
  );

  app.delete(
    '/invoices/:id/payments/:paymentId',
    { config: { scope: 'invoices:write', notFound, envelope: deletedEnvelope }, schema: { tags, summary: 'Void a payment', params: PaymentParams, response: { 200: Deleted } } },
    async (req) => {
      await transact(ctx.db, req.auth, (trx) => voidPayment(trx, req.auth.workspaceId, req.params.id, req.params.paymentId));
      return deletedEnvelope();
    },
  );
}
