import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { RateLimit } from '../config.ts';
import type { RouteScope } from './context.ts';
import { AppError } from '../kernel/errors.ts';
import { type KeyAuthenticator, requireScope } from './auth.ts';

export interface AuthenticatedOptions {
  authenticator: KeyAuthenticator;
  redis: Redis | null;
  limit: RateLimit;
}

/**
 * The one authenticated part of the HTTP API, applied to everything registered in
 * `app` after it (/api/v1, /api/webhooks and /files): key authentication and the
 * route's scope on every route not marked `public`, then one rate limiter over all
 * of them, per key (D18) or, for the public file URLs, per client address
 * (routes marked `unlimited`, the OpenAPI document, are not counted).
 */
export async function authenticated(app: FastifyInstance, { authenticator, redis, limit }: AuthenticatedOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    const config = route.config as { scope?: RouteScope; public?: boolean } | undefined;
    if (!config?.public && config?.scope === undefined && route.method !== 'HEAD') {
      throw new Error(`${route.method} ${route.url} declares no scope`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public) return;
    request.auth = await authenticator.fromHeader(request.headers.authorization); // D2, D28
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
