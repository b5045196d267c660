import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { Deleted, IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { Comment, CommentCreate, CommentQuery } from './comments.schemas.ts';
import { commentsService } from './comments.service.ts';
import { PARENT_SCOPE_PREFIXES } from '../uploads/parents.ts';

export async function commentsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = commentsService(ctx);
  const tags = ['Comment'];
  // The service checks the parent's scope (SPEC Comments: the same mapping as uploads).
  const config = { scope: null, parentScopes: PARENT_SCOPE_PREFIXES, notFound: { id: 'Comment' } };

  app.post(
    '/comments',
    {
      config,
      schema: {
        tags,
        summary: 'Comment on a contact, request, quote, job, invoice, event or timesheet',
        description: 'Scope: `<module>:write` of the target. The author is the API key’s user.',
        body: CommentCreate,
        response: { 201: Ok(Comment) },
      },
    },
    async (request, reply) => reply.code(201).send({ success: true as const, data: await service.create(request.auth, request.body) }),
  );

  app.get(
    '/comments',
    {
      config,
      schema: {
        tags,
        summary: "List a parent's active comments, newest first",
        description: 'Scope: `<module>:read`.',
        querystring: CommentQuery,
        response: { 200: Page(Comment) },
      },
    },
    async (request) => {
      const { rows, pagination } = await service.list(request.auth, request.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  app.get(
    '/comments/:id',
    {
      config,
      schema: { tags, summary: 'Get a comment', description: 'Scope: `<module>:read` of the parent.', params: IdParams, response: { 200: Ok(Comment) } },
    },
    async (request) => ({ success: true as const, data: await service.get(request.auth, request.params.id) }),
  );

  app.delete(
    '/comments/:id',
    {
      config: { ...config, envelope: deletedEnvelope },
      schema: {
        tags,
        summary: 'Delete a comment (soft: status trash)',
        description: 'Scope: `<module>:write` of the parent.',
        params: IdParams,
        response: { 200: Deleted },
      },
    },
    async (request) => {
      await service.remove(request.auth, request.params.id);
      return deletedEnvelope();
    },
  );
}
