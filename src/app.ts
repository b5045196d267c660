import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { AppContext, RouteEntry } from './http/context.ts';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.ts';
import { registerListCsv } from './http/csv.ts';
import { describeApi } from './http/openapi.ts';
import { KeyAuthenticator } from './http/auth.ts';
import { authenticated } from './http/authenticated.ts';
import { SessionAuthenticator } from './http/sessions.ts';
import { authRoutes } from './modules/accounts/auth.routes.ts';
import { idempotency } from './http/idempotency.ts';
import { parseQuery, registerValidators, routablePath } from './http/validation.ts';
import { registerSerializers } from './http/compile-on-first-use.ts';
import { modules } from './modules/index.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { filesRoutes } from './modules/uploads/files.routes.ts';
import { calendarPublicRoutes } from './modules/calendar-feeds/calendar-feeds.routes.ts';
import { intakeRoutes } from './modules/intake/intake.routes.ts';
import { hubRoutes } from './modules/hub/hub.routes.ts';
import { siteRoutes } from './modules/site/site.routes.ts';
import { appPages } from './http/app-pages.ts';
import { lazyRequestLogger } from './http/request-logger.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  redis?: Redis | null;
  /** Tests pass false to keep their output clean. */
  logger?: boolean;
  /** The built web app (dist-app/) to serve at /app; none: no /app routes. */
  appDir?: string | null;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** A request slower than this is logged (with its request id) at `warn`. */
const SLOW_REQUEST_MS = 1000;

export async function buildApp({ config, database, redis = null, logger = true, appDir = null }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger && {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', '*.apiKey', '*.token', '*.secret'],
    },
    bodyLimit: 1024 * 1024,
    // A caller's X-Request-Id is kept when it is a plain token; otherwise we make one.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Two log lines per request cost a tenth of a GET's CPU: requests are logged
    // only when they fail (the error handler) or are slow (below).
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger, // a request's logger is made when it first logs
    // D5: an overlong path id is an id that does not exist (404 from the params schema),
    // not Fastify's bare 414; no URL that fits the 16 KB header limit is longer than this.
    // E18: query text that is not UTF-8 is kept as lone surrogates, which validation refuses.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384, querystringParser: parseQuery },
    rewriteUrl: (req) => routablePath(req.url ?? '/'), // E18, D5: a path id that is not UTF-8 is the route's 404
    frameworkErrors, // D5: errors raised before routing, in the envelope too
  });
  const authenticator = KeyAuthenticator.forDatabase(database);
  app.addHook('onReady', () => authenticator.ready(3_000));
  app.addHook('onClose', () => authenticator.close());
  const sessions = new SessionAuthenticator(database.db, {
    idleMs: config.sessionIdle,
    ttlMs: config.sessionTtl,
    secure: config.publicUrl.startsWith('https:'),
  });
  const ctx: AppContext = { db: database.db, dialect: database.dialect, config, authenticator, sessions };

  // Properties set on every request are declared up front: added later, each would
  // change the request object's shape and slow every property access in Fastify.
  app.decorateRequest('auth');
  app.decorateRequest('rawBody');

  // Every route, as registered: the OpenAPI completeness test reads it.
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routeTable.push({ method, url: route.url, hidden: Boolean(route.schema?.hide) });
    }
  });

  // Bodies are JSON (SPEC conventions 1; uploads add multipart): other types get 415.
  app.removeContentTypeParser('text/plain');
  // A bodiless POST sent with a JSON content type (create-quote takes no body) is no body, not bad JSON.
  // `__proto__` and `constructor.prototype` keys are valid JSON: dropped like any unknown field (D5),
  // wherever they are (also inside `info` or `custom_fields`), so no object's prototype can be set.
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string; // E11 hashes it only for a request with an Idempotency-Key
    return body === '' ? done(null, undefined) : parseJson(request, body as string, done);
  });
  registerValidators(app);
  registerSerializers(app);
  registerErrorHandler(app);
  registerListCsv(app); // E29: every paginated list also answers CSV, every page
  // F127: HTML, CSS, JS and JSON above 1 KB, compressed when the client accepts it; never
  // PDFs, images or uploads (already compressed). Its onSend runs after every other
  // (a route-level hook), so E11 stores the uncompressed answer.
  await app.register(compress, {
    threshold: 1024,
    customTypes: /^(text\/(html|css|javascript)|application\/(json|javascript))\b/,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }, // fast enough for answers made per request
  });
  // METRICS_PORT: main.ts serves it. prom-client (1.6 MB of heap) loads only then.
  if (config.metricsPort !== null) (await import('./http/metrics.ts')).registerMetrics(app, ctx);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (logger) {
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.elapsedTime >= SLOW_REQUEST_MS) {
        request.log.warn({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'slow request');
      }
      done();
    });
  }

  await app.register(swagger, {
    ...describeApi(app), // E16: operationIds, scopes, error responses, components, webhooks
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Fieldwork API', version: '1.0.0', description: 'Field-service back office: contacts, quotes, jobs, invoices and more.' },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'wk_<workspace>.<secret>' },
          // A1: the web app's session; writes also carry X-CSRF-Token (GET /api/v1/me's csrf_token).
          session: { type: 'apiKey', in: 'cookie', name: 'fieldwork_session' },
        },
      },
      security: [{ bearer: [] }, { session: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(database.db);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  await app.register(async (api) => {
    authenticated(api, { authenticator, sessions, redis, limit: config.apiRateLimit });
    idempotency(api, { db: database.db, ttlMs: config.idempotencyTtl }); // E11, on every write below
    await api.register(filesRoutes, ctx); // D20: signed and public file URLs, outside /api/v1
    await api.register(calendarPublicRoutes, ctx); // E25: calendar feeds, outside /api/v1, the token their credential
    await api.register(
      async (v1) => {
        v1.get('/openapi.json', { config: { public: true, unlimited: true }, schema: { hide: true } }, async () => app.swagger());
        for (const module of modules) await v1.register(module, ctx);
      },
      { prefix: '/api/v1' },
    );
    await api.register(webhooksRoutes, { ...ctx, prefix: '/api/webhooks' }); // not under /api/v1
  });
  await app.register(authRoutes, { ...ctx, redis, prefix: '/api/auth' }); // A1: sign-in, setup links, sessions
  await app.register(intakeRoutes, { ...ctx, redis }); // SPEC: /api/requests, /api/forms/embed-request, /embed/form.js
  await app.register(hubRoutes, { ...ctx, redis, prefix: '/hub' }); // E8: the customer hub's HTML pages under /hub
  await app.register(siteRoutes); // F127: /favicon.ico, /robots.txt
  if (appDir) await appPages(app, { dir: appDir }); // A2: Fieldwork Office at /app
  return app;
}
