// Fieldwork Office (packages/app) served by the API's own process at /app (A2):
// hashed assets cached for a year, the HTML never cached, every /app/* path
// answers the app's HTML (the app routes in the browser), with the app's
// security headers. The build's own top-level files (the service worker, its
// Workbox runtime, the web manifest, the icons: A12) are served by name, revalidated
// on every use, so a new build's service worker is found on the next load. Registered only when a build directory is given (main.ts).
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Scripts only from our own files (no inline script); Mantine sets inline styles, so styles may be inline. */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', APP_CSP)
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff');
}

export async function appPages(app: FastifyInstance, { dir: link }: { dir: string }): Promise<void> {
  // dist-app is a symlink a later start may switch to a newer build (scripts/fresh-build.mjs):
  // this server keeps serving the build it started with, whose HTML names its own assets.
  const dir = fs.realpathSync(link);
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const hide = { schema: { hide: true } };

  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply) => {
      secure(reply);
    });
    await scope.register(fastifyStatic, {
      root: path.join(dir, 'assets'),
      prefix: '/app/assets/',
      decorateReply: false,
      index: false,
      wildcard: true,
      preCompressed: true, // scripts/build-app.mjs writes .br and .gz beside each file
      // Names carry a hash of their content: a changed file is a new name.
      immutable: true,
      maxAge: '365d',
    });
    for (const [name, type] of topLevelFiles(dir)) {
      const body = fs.readFileSync(path.join(dir, name));
      scope.get(`/app/${name}`, hide, async (_request, reply) => {
        // The worker's scope is the app (/app/), where it lives: said outright for proxies that rewrite paths.
        if (name === 'sw.js') reply.header('service-worker-allowed', '/app/');
        return reply.type(type).header('cache-control', 'no-cache').send(body);
      });
    }
    const page = async (_request: unknown, reply: FastifyReply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
    scope.get('/app', hide, page);
    scope.get('/app/*', hide, page);
  });
  app.get('/', hide, async (_request, reply) => reply.redirect('/app', 302));
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** The files beside index.html in a build, with their content types (index.html is the pages' own). */
function topLevelFiles(dir: string): [string, string][] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== 'index.html' && TYPES[path.extname(e.name)])
    .map((e) => [e.name, TYPES[path.extname(e.name)]]);
}

/** The built app of this checkout (scripts/build-app.mjs writes it), or null when none was built. */
export function builtAppDir(from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'packages', 'app'))) {
      const built = path.join(dir, 'dist-app');
      return fs.existsSync(path.join(built, 'index.html')) ? built : null;
    }
    if (path.dirname(dir) === dir) return null;
  }
}
