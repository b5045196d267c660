// Fieldwork Office (packages/app) served by the API's own process at /app (A2):
// hashed assets cached for a year, the HTML never cached, every /app/* path
// answers the app's HTML (the app routes in the browser), with the app's
// security headers. The build's own top-level files (the service worker, its
// Workbox runtime, the web manifest, the icons: A12) are served by name, revalidated
// on every use, so a new build's service worker is found on the next load. Registered only when a build directory is given (main.ts).
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sessionToken } from './sessions.ts';

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

/** The preload of the app's first read (same origin, the session cookie sent as fetch() sends it). */
export const ME_PRELOAD = '</api/v1/me>; rel=preload; as=fetch; crossorigin=anonymous';

/** The pages that never ask who is signed in: an unused preload is a console warning. */
const SIGNED_OUT_PAGES = new Set(['sign-in', 'forgot-password', 'reset-password']);

/** A record's page and the API collection its record is read from: /app/quotes/7 reads GET /api/v1/quotes/7. */
const RECORD_READS: Record<string, string> = { clients: 'contacts', requests: 'requests', quotes: 'quotes', jobs: 'jobs', invoices: 'invoices' };

/** The pages a visitor without a session sees; every other page sends them to sign in. */
const PUBLIC_PAGES = new Set([...SIGNED_OUT_PAGES, 'setup']);

/** What the build lists in route-preloads.json: the entry's files, and each page's own script files. */
export interface RoutePreloads {
  entry: { script: string; styles: string[] };
  pages: Record<string, string[]>;
}

const fetchPreload = (path: string) => `<${path}>; rel=preload; as=fetch; crossorigin=anonymous`;

/**
 * The Link header of a page's HTML (F340), in the order the browser should ask: the
 * entry script and its stylesheet, which every page waits for first; when signed in,
 * GET /api/v1/me and on a record's page the record's own read (the app asks for exactly
 * that URL, with the same credentials, and takes the preloaded answer); then the page's
 * own script files. The browser fetches them all with the HTML instead of one after another.
 */
export function pageLinks(url: string, signedIn: boolean, preloads: RoutePreloads | null): string | null {
  const first = /^\/app\/?([^/?#]*)/.exec(url)?.[1] || 'home';
  const page = signedIn || PUBLIC_PAGES.has(first) ? first : 'sign-in';
  const links: string[] = [];
  if (preloads) {
    links.push(`</app/${preloads.entry.script}>; rel=modulepreload`);
    // crossorigin as the HTML's own <link rel="stylesheet" crossorigin>, or the preload goes unused.
    for (const style of preloads.entry.styles) links.push(`</app/${style}>; rel=preload; as=style; crossorigin=anonymous`);
  }
  if (signedIn && !SIGNED_OUT_PAGES.has(first)) links.push(ME_PRELOAD);
  const record = /^\/app\/([a-z]+)\/(\d{1,9})\/?(?:[?#]|$)/.exec(url);
  if (signedIn && record && RECORD_READS[record[1]]) links.push(fetchPreload(`/api/v1/${RECORD_READS[record[1]]}/${Number(record[2])}`));
  for (const file of preloads?.pages[page] ?? []) links.push(`</app/${file}>; rel=modulepreload`);
  return links.length ? links.join(', ') : null;
}

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
  const listed = path.join(dir, 'route-preloads.json');
  const preloads: RoutePreloads | null = fs.existsSync(listed) ? JSON.parse(fs.readFileSync(listed, 'utf8')) : null;
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
    const page = async (request: FastifyRequest, reply: FastifyReply) => {
      // Every signed-in page first asks who is signed in: with a session cookie the browser
      // fetches GET /api/v1/me while it is still loading the scripts (the app's own read then
      // takes the preloaded answer), instead of after them.
      const links = pageLinks(request.url, Boolean(sessionToken(request)), preloads);
      if (links) reply.header('link', links);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
    };
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
