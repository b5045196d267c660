import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { AppError } from '../../kernel/errors.ts';
import { type Bucket, PRIVATE_BUCKET, PUBLIC_BUCKET } from '../../storage/storage.ts';
import { findExportFile } from '../exports/exports.repo.ts';
import { findLogoByKey } from '../workspace/workspace.repo.ts';
import { filesFor } from './files.ts';
import { findFileByKey } from './uploads.repo.ts';

// D20: files are served here whatever the driver (a directory or a bucket, F250),
// outside /api/v1 and without an API key: private ones at
// /files/<key>?expires=&signature=, public ones at the stable /files/public/<key>.

const forbidden = () => new AppError(403, 'Invalid or expired file URL');
const missing = () => new AppError(404, 'Not found');

/** RFC 5987 value for `filename*`: also escapes what encodeURIComponent leaves (' ( ) *). */
const rfc5987 = (name: string) => encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const Params = Type.Object({ '*': Type.String({ description: 'storage key' }) });
// The two parameters of a private file's URL. Anything else, or a repeated one (an
// array), is not a valid signature: 403 like any bad URL, never a 400.
const SignedQuery = Type.Object({ expires: Type.Optional(Type.Unknown()), signature: Type.Optional(Type.Unknown()) });
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

export async function filesRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { storage, sweeper } = filesFor(ctx);
  sweeper.onError = (err) => app.log.warn({ err }, 'file sweep failed');
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => sweeper.stop());

  async function send(reply: FastifyReply, bucket: Bucket, key: string) {
    // A public key is an upload's or a workspace's logo (A125).
    const file =
      (await findFileByKey(ctx.db, bucket, key)) ?? (bucket === PUBLIC_BUCKET ? await findLogoByKey(ctx.db, key) : await findExportFile(ctx.db, key)); // E29: export ZIPs
    const object = file && (await storage.open(bucket, key));
    if (!file || !object) throw missing();
    const inline = /^(image\/|application\/pdf$)/.test(file.mime_type);
    return reply
      .header('content-type', file.mime_type)
      .header('content-length', object.size)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${rfc5987(file.original_file_name)}`)
      .header('cache-control', bucket === PUBLIC_BUCKET ? 'public, max-age=86400' : 'private, max-age=3600')
      .send(object.stream);
  }

  app.get(
    '/files/public/*',
    { config: { public: true }, schema: { tags: ['Files'], summary: 'Download a public file (stable URL, no authentication)', security: [], params: Params } },
    async (request, reply) => send(reply, PUBLIC_BUCKET, request.params['*']),
  );

  app.get(
    '/files/*',
    {
      config: { public: true },
      schema: {
        tags: ['Files'],
        summary: 'Download a private file through its signed URL (valid 1 hour)',
        description: 'The `url` of a private upload link; `expires` and `signature` come with it. A tampered or expired URL answers 403.',
        security: [],
        params: Params,
        querystring: SignedQuery,
      },
    },
    async (request, reply) => {
      const key = request.params['*'];
      const { expires, signature } = request.query;
      // Signature first: nothing about a file is revealed to a bad URL.
      if (!(await storage.verify(PRIVATE_BUCKET, key, text(expires), text(signature)))) throw forbidden();
      return send(reply, PRIVATE_BUCKET, key);
    },
  );
}
