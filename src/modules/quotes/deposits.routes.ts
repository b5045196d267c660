import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { PaymentCreate } from '../invoices/payments.schemas.ts';
import { DepositPayment } from './deposits.schemas.ts';
import { addDeposit, listDeposits } from './deposits.service.ts';

/** EXTENSIONS E23: `/quotes/:id/payments`, a quote's deposit payments. */
export async function depositsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Quote'];
  const notFound = { id: 'Quote' };
  app.post(
    '/quotes/:id/payments',
    {
      config: { scope: 'quotes:write', notFound },
      schema: { tags, summary: "Record a payment of a quote's deposit", params: IdParams, body: PaymentCreate, response: { 201: Ok(DepositPayment) } },
    },
    async (req, reply) => {
      const data = await transact(ctx.db, req.auth, (trx) => addDeposit(trx, req.auth.workspaceId, req.auth.userId, req.params.id, req.body));
      return reply.code(201).send({ success: true as const, data });
    },
  );
  app.get(
    '/quotes/:id/payments',
    {
      config: { scope: 'quotes:read', notFound },
      schema: { tags, summary: "List a quote's deposit payments, oldest paid_on first", params: IdParams, response: { 200: Ok(Type.Array(DepositPayment)) } },
    },
    async (req) => ({ success: true as const, data: await listDeposits(ctx.db, req.auth.workspaceId, req.params.id) }),
  );
}
