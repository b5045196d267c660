import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Ok, Page, Uuid } from '../../kernel/schemas.ts';
import { findUser, listUsers, USER_SORT } from './users.repo.ts';
import { userViewFor } from './users.service.ts';
import { notFound } from '../../kernel/errors.ts';

export const User = Type.Object({
  id: Id,
  user_id: Uuid,
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Type.String(),
  role: Type.String(),
  job_title: Nullable(Type.String()),
  /** E26: money per hour; present for owners, admins, managers and keys with `reports:read`. */
  cost_rate: Type.Optional(Nullable(Type.Number({ description: 'Cost per hour (E26); only for callers with `reports:read`' }))),
});
const UserParams = Type.Object({ user_id: Uuid });

const UserQuery = listQuery(USER_SORT, {});

export async function usersRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/users',
    { config: { scope: 'users:read' }, schema: { tags: ['User'], summary: 'List workspace members', querystring: UserQuery, response: { 200: Page(User) } } },
    async (req) => {
      const { rows, pagination } = await listUsers(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows.map((u) => userViewFor(req.auth, u)), pagination };
    },
  );
  app.get(
    '/users/:user_id',
    {
      config: { scope: 'users:read', notFound: { user_id: 'User' } },
      schema: { tags: ['User'], summary: 'Get a workspace member', params: UserParams, response: { 200: Ok(User) } },
    },
    async (req) => {
      const user = await findUser(db, req.auth.workspaceId, req.params.user_id);
      if (!user) throw notFound('User');
      return { success: true as const, data: userViewFor(req.auth, user) };
    },
  );
}
