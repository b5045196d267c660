import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { unstorable } from '../../http/validation.ts';
import { AppError, ajvDetails, ValidationError } from '../../kernel/errors.ts';
import { Deleted, IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { filesFor } from './files.ts';
import { PARENT_SCOPE_PREFIXES } from './parents.ts';
import type { Storage } from '../../storage/storage.ts';
import { MAX_FILE_BYTES } from './file-check.ts';
import { UploadForm, UploadLink, UploadQuery, UploadUpdate } from './uploads.schemas.ts';
import { type IncomingFile, type IncomingUpload, uploadsService } from './uploads.service.ts';

const MULTIPART = /^multipart\/form-data(;|$)/i;

/** Maps what the multipart parser throws to D4's 400 `Validation error`. */
function multipartError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string };
  const invalid = (path: string[], message: string) => new ValidationError([{ path, message }]);
  switch (e.code) {
    case 'FST_FILES_LIMIT':
      return invalid(['file'], 'only one file may be uploaded, in the field `file`');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return invalid([], 'too many form fields');
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return invalid([], e.message ?? 'invalid form field');
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return invalid(['file'], 'the upload was interrupted');
  }
  if (/multipart|boundary|unexpected end|terminated early|malformed/i.test(e.message ?? '')) return invalid([], `malformed multipart body: ${e.message}`);
  return err;
}

/** The `boundary` parameter of a multipart Content-Type, unquoted ('' when absent). */
const boundaryOf = (contentType: string) => /;\s*boundary=(?:"([^"]*)"|([^";\s]*))/i.exec(contentType)?.slice(1).find((b) => b !== undefined) ?? '';
/** RFC 2046 5.1.1: a boundary is 1 to 70 characters (the parser cannot search for a longer one). */
const MAX_BOUNDARY = 70;

/** A body that stops arriving for this long is given up on (400), so a stalled client holds nothing for long. */
export const UPLOAD_IDLE_MS = 10_000;

const interrupted = () => new ValidationError([{ path: [], message: 'malformed multipart body: it ended before its closing boundary' }]);

/**
 * Watches the raw body beside the parser: whether the closing delimiter
 * `--<boundary>--` went by (@fastify/multipart reads a body cut off before it as
 * a complete one), and a stall of UPLOAD_IDLE_MS, which fails the parser.
 */
function watchBody(request: FastifyRequest) {
  const boundary = boundaryOf(request.headers['content-type'] ?? '');
  const close = Buffer.from(`--${boundary}--`);
  let tail = Buffer.alloc(0);
  let closed = false;
  const raw = request.raw;
  const stall = () => raw.emit('error', new ValidationError([{ path: [], message: `the upload stalled for ${UPLOAD_IDLE_MS / 1000} s` }]));
  const timer = setTimeout(stall, UPLOAD_IDLE_MS);
  const onData = (chunk: Buffer) => {
    timer.refresh();
    if (closed) return;
    // A part's content cannot hold `\r\n--<boundary>`, so the first `--<boundary>--` is the close.
    const window = Buffer.concat([tail, chunk]);
    closed = window.includes(close);
    tail = window.subarray(Math.max(0, window.length - close.length + 1));
  };
  raw.on('data', onData);
  return {
    closed: () => closed,
    stop: () => {
      clearTimeout(timer);
      raw.off('data', onData);
    },
  };
}

/**
 * The file part as a stream that always ends. A body cut off mid-file makes the
 * parser destroy the part or emit an error on it, and a pipeline attached to a
 * stream already destroyed never settles: the request would hang. `cut()` says
 * whether the bytes are incomplete.
 */
function endingStream(file: Readable) {
  const stream = new PassThrough();
  let cut = file.destroyed && !file.readableEnded;
  const stop = () => {
    cut = true;
    file.unpipe(stream);
    stream.end();
  };
  if (cut) stream.end();
  else {
    file.once('error', stop);
    file.once('close', () => {
      if (!file.readableEnded) stop();
    });
    file.pipe(stream);
  }
  return { stream, cut: () => cut };
}

/**
 * Reads the form as it streams: text parts are collected, the file is staged on
 * disk (hashed, capped at 5 MB while streaming) and checked only afterwards, when
 * every field is known (fields may follow the file).
 */
export async function readForm(request: FastifyRequest, storage: Storage, maxBytes = MAX_FILE_BYTES): Promise<IncomingUpload> {
  const fields: Record<string, string> = {};
  let file: IncomingFile | null = null;
  const parts = request.parts();
  const first = parts.next(); // starts the parser: the body is piped into it now
  const body = watchBody(request); // after the pipe, so the parser sees every byte
  try {
    for (let next = await first; !next.done; next = await parts.next()) {
      const part = next.value;
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          part.file.resume(); // not ours: drain it so the parser can move on
          continue;
        }
        const incoming = endingStream(part.file);
        const staged = await storage.stage(incoming.stream, maxBytes);
        file = { staged, fileName: part.filename, declaredType: part.mimetype, tooLarge: staged.truncated || part.file.truncated };
        if (incoming.cut()) throw interrupted();
      } else if (!(part.fieldname in fields)) {
        if (part.valueTruncated) throw new ValidationError([{ path: [part.fieldname], message: 'is too long' }]);
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
      }
    }
    if (!body.closed()) throw interrupted();
    // E18: text a database cannot store is refused like any invalid field.
    const problems = unstorable(fields);
    if (problems.length) throw new ValidationError(ajvDetails(problems));
  } catch (err) {
    if (file) await storage.discard(file.staged);
    throw multipartError(err);
  } finally {
    body.stop();
  }
  return { fields, file };
}

/** Registers the multipart parser in the calling plugin only (uploads, the workspace logo). */
export const registerMultipart = (app: FastifyInstance, maxBytes = MAX_FILE_BYTES) =>
  app.register(multipart, {
    preservePath: true, // keep the client's name as sent, so a name with a path is refused, not trimmed
    throwFileSizeLimit: false, // the cap is enforced (and reported) by storage.stage
    limits: { fileSize: maxBytes + 1, files: 1, fields: 20, parts: 30, fieldSize: 16 * 1024, headerPairs: 50 },
  });

/** SPEC Errors: 415 for anything but multipart/form-data, before any body is read; a boundary RFC 2046 allows. */
export async function multipartOnly(request: FastifyRequest) {
  const type = request.headers['content-type'] ?? '';
  if (!MULTIPART.test(type)) throw new AppError(415, 'Content-Type must be multipart/form-data');
  const boundary = boundaryOf(type);
  if (boundary.length < 1 || boundary.length > MAX_BOUNDARY) {
    throw new ValidationError([{ path: [], message: `malformed multipart body: the boundary must be 1 to ${MAX_BOUNDARY} characters (RFC 2046)` }]);
  }
}

export async function uploadsRoutes(app: FastifyInstance, ctx: AppContext) {
  // Registered here, so only this plugin's routes parse multipart bodies.
  await registerMultipart(app);
  const { storage } = filesFor(ctx);
  const service = uploadsService(ctx);
  const tags = ['Upload'];
  // The service checks the parent's scope (SPEC Uploads 4); D4: 400 `Validation error`, queries included.
  const config = { scope: null, parentScopes: PARENT_SCOPE_PREFIXES, validation: 'uploads' as const, notFound: { id: 'Upload' } };
  // The JSON routes below take their request types from their schemas.
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/uploads',
    {
      config,
      preParsing: multipartOnly,
      // The body is a stream read by the handler; the schema is there for the OpenAPI document.
      validatorCompiler: () => () => true,
      schema: {
        tags,
        summary: 'Upload a file and link it to a contact, request, quote, job, invoice, event or timesheet',
        description: 'Scope: `<module>:write` of the target. At most 5 MB; the type is checked against the bytes.',
        consumes: ['multipart/form-data'],
        body: UploadForm,
        response: { 201: Ok(UploadLink) },
      },
    },
    async (request, reply) => {
      const incoming = await readForm(request, storage);
      let data: UploadLink;
      try {
        data = await service.create(request.auth, incoming);
      } finally {
        // Before answering: once the client has its answer, staging holds nothing of it.
        if (incoming.file) await storage.discard(incoming.file.staged);
      }
      return reply.code(201).send({ success: true, data });
    },
  );

  typed.get(
    '/uploads',
    {
      config,
      schema: {
        tags,
        summary: "List a parent's upload links, newest first",
        description: 'Scope: `<module>:read`.',
        querystring: UploadQuery,
        response: { 200: Page(UploadLink) },
      },
    },
    async (request) => {
      const { rows, pagination } = await service.list(request.auth, request.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  typed.get(
    '/uploads/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Get an upload link with a fresh URL',
        description: 'Scope: `<module>:read` of the parent.',
        params: IdParams,
        response: { 200: Ok(UploadLink) },
      },
    },
    async (request) => ({ success: true as const, data: await service.get(request.auth, request.params.id) }),
  );

  typed.patch(
    '/uploads/:id',
    {
      config,
      schema: {
        tags,
        summary: "Change an upload link's name, description or category",
        description: 'Scope: `<module>:write` of the parent. At least one field.',
        params: IdParams,
        body: UploadUpdate,
        response: { 200: Ok(UploadLink) },
      },
    },
    async (request) => ({ success: true as const, data: await service.update(request.auth, request.params.id, request.body) }),
  );

  typed.delete(
    '/uploads/:id',
    {
      config: { ...config, envelope: deletedEnvelope },
      schema: {
        tags,
        summary: 'Delete an upload link',
        description: 'Scope: `<module>:write` of the parent. The bytes go when no other link uses them.',
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
