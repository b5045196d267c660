import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimit } from '../config.ts';
import type { RouteScope } from './context.ts';
import { AppError } from '../kernel/errors.ts';
import { type AuthContext, type KeyAuthenticator, requireScope } from './auth.ts';
import { type Count, rateLimiter } from './rate-limit.ts';
import { type SessionAuthenticator, sessionToken } from './sessions.ts';

export interface AuthenticatedOptions {
  authenticator: KeyAuthenticator;
  sessions: SessionAuthenticator;
  redis: Redis | null;
  limit: RateLimit;
}

type RouteConfig = { scope?: RouteScope; public?: boolean; unlimited?: boolean };

/**
 * The one authenticated part of the HTTP API, applied to everything registered in
 * `app` after it (/api/v1, /api/webhooks and /files): key authentication and the
 * route's scope on every route not marked `public`, then one rate limiter over all
 * of them, per key (D18) or, for the public file URLs, per client address
 * (routes marked `unlimited`, the OpenAPI document, are not counted). A request
 * refused by authentication or its scope is not counted.
 *
 * A request without an Authorization header but with a session cookie is
 * authenticated by its session instead (A11): the same AuthContext, its scopes
 * from the member's role, its counter per person; nothing after this hook
 * tells the two apart but the members' limits of A1 (`auth.role`).
 *
 * One hook with a callback: a key the process knows and a counter kept in the
 * process cost no promise, which every request would otherwise pay.
 */
export function authenticated(app: FastifyInstance, { authenticator, sessions, redis, limit }: AuthenticatedOptions): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as RouteConfig | undefined;
    if (!config?.public && config?.scope === undefined && route.method !== 'HEAD') {
      throw new Error(`${route.method} ${route.url} declares no scope`);
    }
  });

  const limiter = rateLimiter(limit, redis, 'fieldwork-api');

  /** Scope, then count: `done` once, with the refusal if there is one. */
  function admit(request: FastifyRequest, reply: FastifyReply, auth: AuthContext | undefined, done: HookHandlerDoneFunction): void {
    const config = request.routeOptions.config as RouteConfig;
    let counted: Count | Promise<Count> | null;
    try {
      if (auth) {
        request.auth = auth;
        if (config.scope) requireScope(auth, config.scope);
      }
      counted = config.unlimited ? null : limiter.hit(auth ? `key:${auth.keyHash}` : `ip:${request.ip}`);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (counted === null) done();
    else if (counted instanceof Promise) counted.then((c) => done(limited(reply, c)), done);
    else done(limited(reply, counted));
  }

  app.addHook('onRequest', (request, reply, done) => {
    const isPublic = (request.routeOptions.config as RouteConfig).public;
    const header = request.headers.authorization;
    const known = isPublic || header === undefined ? undefined : authenticator.cached(header);
    if (isPublic || known) {
      admit(request, reply, known, done); // a public route: no key, counted per address
      return;
    }
    const bySession = header === undefined && sessionToken(request) !== null;
    (bySession ? sessions.fromRequest(request) : authenticator.fromHeader(header)).then((auth) => admit(request, reply, auth, done), done); // D2, D28
  });
}

/** D18: the X-RateLimit-* headers; past the budget, Retry-After and the 429 to answer. */
function limited(reply: FastifyReply, c: Count): AppError | undefined {
  reply.header('x-ratelimit-limit', c.limit);
  reply.header('x-ratelimit-remaining', c.remaining);
  reply.header('x-ratelimit-reset', c.resetSeconds);
  if (c.allowed) return undefined;
  reply.header('retry-after', c.resetSeconds);
  return new AppError(429, 'Rate limit exceeded. Try again later.');
}
