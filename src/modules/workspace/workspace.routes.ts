import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { notFound } from '../../kernel/errors.ts';
import { Id, Nullable, Ok } from '../../kernel/schemas.ts';
import { findWorkspace, workspaceView } from './workspace.service.ts';

const NullableString = Nullable(Type.String());
export const Workspace = Type.Object({
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  industry: NullableString,
  industry_key: NullableString,
  country: NullableString,
  currency: NullableString,
  timezone: NullableString,
  about: NullableString,
});

export async function workspaceRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/workspace',
    { config: { scope: 'workspace:read' }, schema: { tags: ['Workspace'], summary: "The key's workspace", response: { 200: Ok(Workspace) } } },
    async (req) => {
      const w = await findWorkspace(db, req.auth.workspaceId);
      if (!w) throw notFound('Workspace');
      return { success: true as const, data: workspaceView(w) };
    },
  );
}
