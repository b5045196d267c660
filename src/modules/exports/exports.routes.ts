import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { filesFor } from '../uploads/files.ts';
import { Export } from './exports.schemas.ts';
import { exportsService } from './exports.service.ts';

/** E29: POST /exports (a whole-workspace ZIP, made by the worker) and GET /exports/:id (its status and download URL). */
export async function exportsRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { storage } = filesFor(ctx);
  const service = exportsService(ctx, storage);
  const tags = ['Export'];
  const notFound = { id: 'Export' };

  app.post(
    '/exports',
    {
      config: { scope: 'exports:write', notFound, successStatus: 202 },
      schema: {
        tags,
        summary: 'Export the whole workspace as a ZIP',
        description:
          'One JSON file per resource (the list API shapes), `uploads.json`, the files under `files/` and `manifest.json`. Made by the worker: follow it with GET /exports/:id.',
        response: { 202: Ok(Export) },
      },
    },
    async (request, reply) => {
      await storage.ready(); // no URL yet, but the answer is built the same way as GET's
      return reply.code(202).send({ success: true, data: await service.create(request.auth) });
    },
  );

  app.get(
    '/exports/:id',
    {
      config: { scope: 'exports:read', notFound },
      schema: { tags, summary: "An export's status, and its signed download URL once done", params: IdParams, response: { 200: Ok(Export) } },
    },
    async (request) => ({ success: true as const, data: await service.get(request.auth, request.params.id) }),
  );
}
