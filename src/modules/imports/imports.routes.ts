import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { IdParams, Ok } from '../../kernel/schemas.ts';
import { filesFor } from '../uploads/files.ts';
import { multipartOnly, readForm, registerMultipart } from '../uploads/uploads.routes.ts';
import { Import, ImportForm } from './imports.schemas.ts';
import { importsService, MAX_IMPORT_BYTES } from './imports.service.ts';

/** E28: POST /imports (a CSV, queued for the worker) and GET /imports/:id (its progress and result). */
export async function importsRoutes(app: FastifyInstance, ctx: AppContext) {
  await registerMultipart(app, MAX_IMPORT_BYTES);
  const { storage } = filesFor(ctx);
  const service = importsService(ctx, storage);
  const tags = ['Import'];
  // The scope depends on `kind` (contacts or services), checked by the service.
  const config = { scope: null, parentScopes: ['contacts', 'services'], validation: 'uploads' as const, notFound: { id: 'Import' } };
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/imports',
    {
      config: { ...config, successStatus: 202 },
      preParsing: multipartOnly,
      validatorCompiler: () => () => true, // the body is a stream read by the handler; the schema documents it
      schema: {
        tags,
        summary: 'Import clients or price book services from a CSV file',
        description:
          "Scope: `contacts:write` (kind `clients`) or `services:write` (`services`). The file and its columns are checked at once (400); the rows are written by the worker: follow the import with GET /imports/:id. A row that fails the API's checks is skipped and listed; a client with a known email (a service with a known name) is updated.",
        consumes: ['multipart/form-data'],
        body: ImportForm,
        response: { 202: Ok(Import) },
      },
    },
    async (request, reply) => {
      const incoming = await readForm(request, storage, MAX_IMPORT_BYTES);
      try {
        return reply.code(202).send({ success: true, data: await service.create(request.auth, incoming) });
      } finally {
        if (incoming.file) await storage.discard(incoming.file.staged);
      }
    },
  );

  typed.get(
    '/imports/:id',
    {
      config,
      schema: {
        tags,
        summary: "An import's status, progress and result",
        description: 'Scope: `contacts:read` or `services:read`, by its kind.',
        params: IdParams,
        response: { 200: Ok(Import) },
      },
    },
    async (request) => ({ success: true as const, data: await service.get(request.auth, request.params.id) }),
  );
}
