import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { type ListSpec, listQuery, paginate } from '../../db/list-query.ts';
import { Id, Nullable, Page, Uuid } from '../../kernel/schemas.ts';
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

const SORT = ['first_name', 'last_name', 'email', 'role', 'job_title', 'created_at', 'updated_at', 'name'] as const;
const UserQuery = listQuery(SORT, {});
const listSpec: ListSpec = {
  id: 'id',
  // `name` is an alias of first_name (SPEC list filters).
  sort: { ...Object.fromEntries(SORT.map((f) => [f, f])), name: 'first_name' },
  search: ['first_name', 'last_name', 'email', 'phone', sql`coalesce(first_name, '') || ' ' || coalesce(last_name, '')`],
};

export async function usersRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/users',
    { config: { scope: 'users:read' }, schema: { tags: ['User'], summary: 'List workspace members', querystring: UserQuery, response: { 200: Page(User) } } },
    async (req) => {
      const qb = db.selectFrom('users').selectAll().where('workspace_id', '=', req.auth.workspaceId);
      const { rows, pagination } = await paginate(qb, req.query, listSpec);
      return { success: true as const, data: rows.map(userView), pagination };
    },
  );
}
