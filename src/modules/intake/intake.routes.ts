import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { invalidKey, requireScope } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { checkIdempotencyKey, claimIdempotencyKey, idempotencyOnSend } from '../../http/idempotency.ts';
import { transact } from '../../http/transact.ts';
import { rateLimiter } from '../../http/rate-limit.ts';
import { AppError, invalidField, notFound, ValidationError } from '../../kernel/errors.ts';
import { formFieldDefinitions, workspaceHash } from './intake.repo.ts';
import { EmbedFieldsBody, EmbedFieldsResponse, EmbedRequestBody, EmbedRequestResponse, InternalRequestBody, InternalRequestResponse } from './intake.schemas.ts';
import { intake, splitName } from './intake.service.ts';

export interface IntakeOptions extends AppContext {
  redis: Redis | null;
}

const FORM_PATH = '/api/forms/embed-request';
const FIELDS_PATH = '/api/forms/embed-fields';
const FORM_SCRIPT = fs.readFileSync(new URL('./embed-form.js', import.meta.url), 'utf8');

// SPEC Limits, CORS of the embedded form endpoint: every website may post to it.
function corsHeaders(reply: FastifyReply) {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'POST, OPTIONS');
  reply.header('access-control-allow-headers', 'Content-Type, Authorization');
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** OPERATOR INTERNAL_API_KEY: unset answers 401 to everyone; D28 wording. */
function checkInternalKey(expected: string | null, header: string | undefined): void {
  const m = /^Bearer +(\S+)\s*$/.exec(header ?? '');
  if (!m) throw new AppError(401, 'Missing authorization header');
  if (!expected || !timingSafeEqual(digest(m[1]), digest(expected))) throw invalidKey();
}

/**
 * The customer intake routes, outside /api/v1 (SPEC): `POST /api/requests` for
 * plugins, `POST /api/forms/embed-request` for websites' forms, and the script
 * that renders such a form (`GET /embed/form.js`).
 */
export async function intakeRoutes(fastify: FastifyInstance, { redis, ...ctx }: IntakeOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = ctx;
  const limiter = rateLimiter(config.formRateLimit, redis, 'fieldwork-form'); // per workspace

  /** The form's key, from the body: D2 (401), its scope, and D21 for legacy keys. */
  async function formKey(apiKey: string, workspaceId: number | undefined, scope: string) {
    const auth = await ctx.authenticator.fromToken(apiKey); // D2: 401 Invalid API key
    requireScope(auth, scope);
    if (auth.legacy) {
      // D21: a legacy key names its workspace, and it must be its own; wk_ keys ignore it.
      if (workspaceId === undefined) throw new ValidationError([{ path: ['workspaceId'], message: 'is required for legacy keys' }]);
      if (workspaceId !== auth.workspaceId) throw invalidKey();
    }
    return auth;
  }

  app.post(
    '/api/requests',
    {
      // The key is checked before the body (an unauthenticated caller learns nothing about the schema).
      onRequest: async (req) => checkInternalKey(config.internalApiKey, req.headers.authorization),
      schema: {
        operationId: 'createInternalRequest', // POST /api/v1/requests is createRequest
        tags: ['Internal'],
        summary: 'Create a customer request (internal plugin key)',
        security: [{ bearer: [] }],
        body: InternalRequestBody,
        response: { 201: InternalRequestResponse },
      },
    },
    async (req, reply) => {
      const b = req.body;
      if (!b.email && !b.phone) throw invalidField(['email'], 'email or phone is required');
      const split = splitName(b.name);
      const { request, contactId, propertyId } = await db.transaction().execute((trx) =>
        intake(trx, b.workspace_id, null, {
          first_name: b.first_name ?? split.first,
          last_name: b.last_name ?? split.last,
          email: b.email,
          phone: b.phone,
          address: b,
          details: b.message,
        }),
      );
      // D24: the bare object; D13: the number as a string.
      return reply.code(201).send({
        id: request.id,
        number: String(request.number),
        contact_id: contactId,
        property_id: propertyId,
        workspace_id: request.workspace_id,
        details: request.details,
        status: request.status,
        created_at: request.created_at,
      });
    },
  );

  for (const path of [FORM_PATH, FIELDS_PATH]) {
    app.options(path, { schema: { hide: true } }, async (_req, reply) => {
      corsHeaders(reply);
      reply.header('access-control-max-age', '86400');
      return reply.code(204).send();
    });
  }

  // D23 on the form: the request custom fields it must draw, so a required one can be
  // filled in. Keyed like the submission (the key in the body, `forms:read`); read on
  // each page view, so it does not count against FORM_RATE_LIMIT (F103).
  app.post(
    FIELDS_PATH,
    {
      config: { validation: 'form', errors: [401, 403] },
      onRequest: async (_req, reply) => corsHeaders(reply),
      schema: {
        operationId: 'getEmbeddedFormFields',
        'x-scopes': ['forms:read'],
        tags: ['Embedded form'],
        summary: "List the request custom fields a website form shows (key in the body)",
        description:
          'Authenticated by the Embed Forms API key in the body (`apiKey`, scope `forms:read`), not by a header, since a website page sends it: 401 `Invalid API key` for an unknown or revoked key, 403 without the scope. Read on every page view, so not counted against FORM_RATE_LIMIT.',
        security: [],
        body: EmbedFieldsBody,
        response: { 200: EmbedFieldsResponse },
      },
    },
    async (req) => {
      const auth = await formKey(req.body.apiKey, req.body.workspaceId, 'forms:read');
      return { success: true as const, data: { custom_fields: await formFieldDefinitions(db, auth.workspaceId) } };
    },
  );

  app.post(
    FORM_PATH,
    {
      config: { validation: 'form', errors: [401, 403, 429] }, // D4: 400 Invalid request data, paths from formData
      // On every answer, errors included, so the page can read them.
      onRequest: async (_req, reply) => corsHeaders(reply),
      // D6 before the schema: a bot's submission is rejected as spam whatever else it filled in.
      preValidation: async (req) => {
        const body = req.body as { formData?: { website?: unknown }; idempotency_key?: unknown } | undefined;
        const website = body?.formData?.website;
        if (website !== undefined && website !== null && website !== '') throw new AppError(400, 'Submission rejected');
        if (typeof body?.idempotency_key === 'string') checkIdempotencyKey(body.idempotency_key); // E11's wording, not the schema's
      },
      onSend: idempotencyOnSend, // E11: the key is claimed in the handler, once the API key is known
      schema: {
        operationId: 'submitEmbeddedForm',
        'x-scopes': ['forms:write'],
        tags: ['Embedded form'],
        summary: 'Submit a website request form (key in the body)',
        description:
          'Authenticated by the Embed Forms API key in the body (`apiKey`, scope `forms:write`), not by a header, since a website page sends it: 401 `Invalid API key` for an unknown or revoked key, 403 without the scope. At most FORM_RATE_LIMIT submissions per workspace and window (100 an hour by default): past it, 429 with `Retry-After`. `idempotency_key` makes a resubmission answer the first answer (E11).',
        security: [],
        body: EmbedRequestBody,
        response: { 201: EmbedRequestResponse },
      },
    },
    async (req, reply) => {
      const { apiKey, workspaceId, formData: f, idempotency_key } = req.body;
      const auth = await formKey(apiKey, workspaceId, 'forms:write');
      const hash = await workspaceHash(db, auth.workspaceId);
      if (hash === undefined) throw notFound('Workspace');
      // E11: a repeat (a resubmitted form) is answered before it counts against the form's limit.
      if (idempotency_key !== undefined && (await claimIdempotencyKey({ db, ttlMs: config.idempotencyTtl }, req, reply, auth, idempotency_key))) return reply;
      const counted = await limiter.hit(hash); // the workspace's hash, not its id: ids repeat across databases sharing one Redis
      if (!counted.allowed) {
        reply.header('retry-after', String(counted.resetSeconds));
        throw new AppError(429, 'Rate limit exceeded'); // SPEC Errors: the form's own wording
      }
      // req.auth is `auth` with the form's key once one was claimed.
      const data = await transact(db, req.auth ?? auth, async (trx) => {
        const result = await intake(trx, auth.workspaceId, auth.userId, {
          first_name: f.firstName,
          last_name: f.lastName,
          email: f.email,
          phone: f.phone,
          company: f.company,
          address: f.property,
          details: f.description,
          // D23: the form's customFields are the request's custom_fields, checked by createRequest.
          custom_fields: f.customFields,
          customFieldsPath: ['formData', 'customFields'],
        });
        return {
          requestId: result.request.id,
          requestNumber: String(result.request.number), // D13
          contactId: result.contactId,
          propertyId: result.propertyId,
        };
      });
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.get('/embed/form.js', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(FORM_SCRIPT),
  );
}
