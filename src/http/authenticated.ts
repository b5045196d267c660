import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimit } from '../config.ts';
import type { RouteScope } from './context.ts';
import { AppError } from '../kernel/errors.ts';
import { type KeyAuthenticator, requireScope } from './auth.ts';
import { type SessionAuthenticator, sessionToken } from './sessions.ts';

export interface AuthenticatedOptions {
  authenticator: KeyAuthenticator;
  sessions: SessionAuthenticator;
  redis: Redis | null;
  limit: RateLimit;
}

/**
 * The one authenticated part of the HTTP API, applied to everything registered in
 * `app` after it (/api/v1, /api/webhooks and /files): key authentication and the
 * route's scope on every route not marked `public`, then one rate limiter over all
 * of them, per key (D18) or, for the public file URLs, per client address
 * (routes marked `unlimited`, the OpenAPI document, are not counted).
 *
 * A request without an Authorization header but with a session cookie is
 * authenticated by its session instead (A11): the same AuthContext, its scopes
 * from the member's role, its counter per person; nothing after this hook
 * tells the two apart but the members' limits of A1 (`auth.role`).
 */
export async function authenticated(app: FastifyInstance, { authenticator, sessions, redis, limit }: AuthenticatedOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    const config = route.config as { scope?: RouteScope; public?: boolean } | undefined;
    if (!config?.public && config?.scope === undefined && route.method !== 'HEAD') {
      throw new Error(`${route.method} ${route.url} declares no scope`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public) return;
    const bySession = request.headers.authorization === undefined && sessionToken(request) !== null;
    request.auth = bySession ? await sessions.fromRequest(request) : await authenticator.fromHeader(request.headers.authorization); // D2, D28
    if (config.scope) requireScope(request.auth, config.scope);
  });

  // After authentication (onRequest), so the counter is per key (D18).
  await app.register(rateLimit, {
    hook: 'preParsing',
    max: limit.max,
    timeWindow: limit.windowMs,
    allowList: (request) => Boolean(request.routeOptions.config.unlimited),
    keyGenerator: (request) => (request.auth ? `key:${request.auth.keyHash}` : `ip:${request.ip}`),
    redis: redis ?? undefined,
    nameSpace: 'fieldwork-api-',
    skipOnError: true,
    errorResponseBuilder: () => new AppError(429, 'Rate limit exceeded. Try again later.'),
  });
}
