import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { KeyAuthenticator, requireScope } from './auth.ts';
import type { AppContext } from './context.ts';
import { AppError } from './errors.ts';

export interface V1Options {
  ctx: AppContext;
  redis: Redis | null;
  modules: FastifyPluginAsync<AppContext>[];
}

/** `/api/v1`: key authentication, the route's scope, D18 rate limits, then the modules. */
export async function v1(app: FastifyInstance, { ctx, redis, modules }: V1Options): Promise<void> {
  const authenticator = new KeyAuthenticator(ctx.db);

  app.addHook('onRoute', (route) => {
    const config = route.config as { scope?: string | null; public?: boolean } | undefined;
    if (!config?.public && config?.scope === undefined && route.method !== 'HEAD') {
      throw new Error(`${route.method} ${route.url} declares no scope`);
    }
  });

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public) return;
    request.auth = await authenticator.fromHeader(request.headers.authorization);
    if (config.scope) requireScope(request.auth, config.scope);
  });

  // After authentication (onRequest), so the counter is per key (D18).
  await app.register(rateLimit, {
    hook: 'preParsing',
    max: ctx.config.apiRateLimit.max,
    timeWindow: ctx.config.apiRateLimit.windowMs,
    keyGenerator: (request) => `key:${request.auth?.keyHash ?? request.ip}`,
    allowList: (request) => Boolean(request.routeOptions.config.public),
    redis: redis ?? undefined,
    nameSpace: 'fieldwork-api-',
    skipOnError: true,
    errorResponseBuilder: () => new AppError(429, 'Rate limit exceeded. Try again later.'),
  });

  for (const module of modules) await app.register(module, ctx);
}
