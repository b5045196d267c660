import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';

// What browsers and crawlers ask every site for (F127): without them each hub page
// logged a console error for /favicon.ico, and /robots.txt was a JSON 404.
const FAVICON = fs.readFileSync(new URL('./favicon.ico', import.meta.url));
// Hub pages are private links (their headers also say noindex); /app/ is the web app.
const ROBOTS = 'User-agent: *\nDisallow: /hub/\nDisallow: /app/\n';
const DAY = 'public, max-age=86400';

export async function siteRoutes(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  app.get('/favicon.ico', hide, async (_req, reply) => reply.header('content-type', 'image/x-icon').header('cache-control', DAY).send(FAVICON));
  app.get('/robots.txt', hide, async (_req, reply) => reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', DAY).send(ROBOTS));
}
