import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { Ok } from '../../kernel/schemas.ts';
import { Me } from './accounts.schemas.ts';
import { me } from './accounts.service.ts';

/** APP.md A1 `GET /api/v1/me`: who is calling, for a key or a session. */
export async function meRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/me',
    {
      // Any caller may ask who it is: no scope.
      config: { scope: null },
      schema: {
        operationId: 'getMe',
        tags: ['Auth'],
        summary: 'The calling member, workspace, scopes and (for a session) CSRF token and workspaces',
        description: 'A key sees only its own workspace in `workspaces`; a session, every workspace of its person.\n\nScope: none (any key or session).',
        security: [{ bearer: [] }, { session: [] }],
        response: { 200: Ok(Me) },
      },
    },
    async (req) => ({ success: true as const, data: await me(db, req.auth) }),
  );
}
