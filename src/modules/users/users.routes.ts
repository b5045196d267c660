import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Page, Uuid } from '../../kernel/schemas.ts';
import { listUsers, USER_SORT } from './users.repo.ts';
import { userView } from './users.service.ts';

export const User = Type.Object({
  id: Id,
  user_id: Uuid,
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  email: Type.String(),
  role: Type.String(),
  job_title: Nullable(Type.String()),
});

const UserQuery = listQuery(USER_SORT, {});

export async function usersRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/users',
    { config: { scope: 'users:read' }, schema: { tags: ['User'], summary: 'List workspace members', querystring: UserQuery, response: { 200: Page(User) } } },
    async (req) => {
      const { rows, pagination } = await listUsers(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows.map(userView), pagination };
    },
  );
}
