// A2: the built app served by the API's own process at /app (src/http/app-pages.ts),
// checked with inject() on a stand-in build: caching, security headers, client-side
// routes answered with the HTML, compressed assets, and / redirecting to /app.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { APP_CSP, builtAppDir, ME_PRELOAD, pageLinks } from '../src/http/app-pages.ts';
import { testDatabase } from './helpers.ts';

// What the build writes beside index.html: the entry's files, each lazily loaded page's script files.
const ROUTE_PRELOADS = {
  entry: { script: 'assets/index-abc123.js', styles: ['assets/index-def456.css'] },
  pages: {
    home: ['assets/home-1.js'],
    clients: ['assets/clients-2.js', 'assets/shared-3.js'],
    'sign-in': ['assets/sign-in-4.js'],
    setup: ['assets/setup-5.js'],
  },
};
const modules = (...files: string[]) => files.map((f) => `</app/${f}>; rel=modulepreload`);
// Every page's Link header starts with the entry script and its stylesheet, as the HTML names them.
const ENTRY = [...modules('assets/index-abc123.js'), '</app/assets/index-def456.css>; rel=preload; as=style; crossorigin=anonymous'];

describe('the app at /app', () => {
  let app: FastifyInstance;
  let bare: FastifyInstance;
  let drop: () => Promise<void>;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-app-'));
  const html = '<!doctype html><html><head><script type="module" src="/app/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
  const js = `console.log(${JSON.stringify('x'.repeat(2000))});`;
  before(async () => {
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), html);
    fs.writeFileSync(path.join(dir, 'assets/index-abc123.js'), js);
    fs.writeFileSync(path.join(dir, 'assets/index-abc123.js.br'), zlib.brotliCompressSync(js));
    fs.writeFileSync(path.join(dir, 'assets/index-abc123.js.gz'), zlib.gzipSync(js));
    fs.writeFileSync(path.join(dir, 'sw.js'), 'self.addEventListener("fetch", () => {});');
    fs.writeFileSync(path.join(dir, 'manifest.webmanifest'), '{"name":"Fieldwork"}');
    fs.writeFileSync(path.join(dir, 'icon-192.png'), Buffer.from([137, 80, 78, 71]));
    fs.writeFileSync(path.join(dir, 'route-preloads.json'), JSON.stringify(ROUTE_PRELOADS));
    const db = await testDatabase();
    drop = db.drop;
    const config = loadConfig({ PUBLIC_URL: 'http://fieldwork.test' });
    app = await buildApp({ config, database: db.database, logger: false, appDir: dir });
    bare = await buildApp({ config, database: db.database, logger: false });
  });
  after(async () => {
    await app.close();
    await bare.close();
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const security = (headers: Record<string, unknown>) => {
    assert.equal(headers['content-security-policy'], APP_CSP);
    assert.doesNotMatch(String(headers['content-security-policy']), /script-src[^;]*unsafe-inline/);
    assert.equal(headers['referrer-policy'], 'same-origin');
    assert.equal(headers['x-frame-options'], 'DENY');
  };

  test('/app and every path under it answer the HTML, never cached, with the security headers', async () => {
    for (const url of ['/app', '/app/', '/app/clients', '/app/clients/12?tab=quotes', '/app/setup/some-token', '/app/no/such/page']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, html, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      security(res.headers);
    }
  });

  test('a page asked for with a session cookie preloads GET /api/v1/me (same-origin credentials, as fetch sends them), a record page its record, and its own script files', async () => {
    const cookie = `fieldwork_session=${'a'.repeat(43)}`;
    const link = async (url: string, headers: Record<string, string> = {}) => String((await app.inject({ url, headers })).headers.link ?? '').split(', ').filter(Boolean);
    assert.deepEqual(await link('/app', { cookie }), [...ENTRY, ME_PRELOAD, ...modules('assets/home-1.js')]);
    assert.deepEqual(await link('/app/', { cookie }), [...ENTRY, ME_PRELOAD, ...modules('assets/home-1.js')]);
    assert.equal(ME_PRELOAD, '</api/v1/me>; rel=preload; as=fetch; crossorigin=anonymous');
    // A record's page: its record's read too, at the URL the page asks for.
    const read = (path: string) => `<${path}>; rel=preload; as=fetch; crossorigin=anonymous`;
    assert.deepEqual(await link('/app/clients/12?tab=quotes', { cookie }), [...ENTRY, ME_PRELOAD, read('/api/v1/contacts/12'), ...modules('assets/clients-2.js', 'assets/shared-3.js')]);
    assert.deepEqual(await link('/app/clients/012/', { cookie }), [...ENTRY, ME_PRELOAD, read('/api/v1/contacts/12'), ...modules('assets/clients-2.js', 'assets/shared-3.js')]);
    for (const [url, api] of [['/app/quotes/7', '/api/v1/quotes/7'], ['/app/jobs/8', '/api/v1/jobs/8'], ['/app/invoices/9', '/api/v1/invoices/9'], ['/app/requests/10', '/api/v1/requests/10']]) {
      assert.deepEqual((await link(url, { cookie })).slice(0, 4), [...ENTRY, ME_PRELOAD, read(api)], url);
    }
    // Lists, editors, other pages and a signed-out visitor: no record read.
    for (const url of ['/app/clients', '/app/clients/12/edit', '/app/quotes/new', '/app/reports/7', '/app/clients/12345678901']) {
      assert.ok(!(await link(url, { cookie })).some((l) => l.startsWith('</api/v1/') && l !== ME_PRELOAD), url);
    }
    assert.deepEqual(await link('/app/clients', { cookie }), [...ENTRY, ME_PRELOAD, ...modules('assets/clients-2.js', 'assets/shared-3.js')]);
    assert.deepEqual(await link('/app/reports', { cookie }), [...ENTRY, ME_PRELOAD], 'a page the build did not list: the entry and /me alone');
    assert.equal(pageLinks('/app/clients/12', true, null), `${ME_PRELOAD}, ${read('/api/v1/contacts/12')}`, 'a build that lists nothing: the reads alone');
    // The pages of signing in never read /me; setup does (it may be opened signed in).
    for (const url of ['/app/sign-in', '/app/sign-in?next=%2Fclients']) assert.deepEqual(await link(url, { cookie }), [...ENTRY, ...modules('assets/sign-in-4.js')], url);
    assert.deepEqual(await link('/app/forgot-password', { cookie }), ENTRY);
    assert.deepEqual(await link('/app/setup/abc', { cookie }), [...ENTRY, ME_PRELOAD, ...modules('assets/setup-5.js')]);
    // No session (or a cookie that is not one): /me is not preloaded, and a signed-in page's
    // visitor is sent to sign in, whose files are the ones preloaded.
    for (const headers of [{}, { cookie: 'fieldwork_session=not-a-token' }] as Record<string, string>[]) {
      for (const url of ['/app', '/app/clients/12', '/app/sign-in']) assert.deepEqual(await link(url, headers), [...ENTRY, ...modules('assets/sign-in-4.js')], url);
      assert.deepEqual(await link('/app/setup/abc', headers), [...ENTRY, ...modules('assets/setup-5.js')]);
    }
  });

  test('A12: the service worker, the manifest and the icons beside index.html, by name, revalidated on every use', async () => {
    const sw = await app.inject({ url: '/app/sw.js' });
    assert.equal(sw.statusCode, 200);
    assert.equal(sw.body, 'self.addEventListener("fetch", () => {});');
    assert.match(String(sw.headers['content-type']), /^text\/javascript/);
    assert.equal(sw.headers['cache-control'], 'no-cache'); // a new build's worker is found on the next load
    assert.equal(sw.headers['service-worker-allowed'], '/app/');
    security(sw.headers);
    const manifest = await app.inject({ url: '/app/manifest.webmanifest' });
    assert.equal(manifest.headers['content-type'], 'application/manifest+json');
    assert.equal(manifest.body, '{"name":"Fieldwork"}');
    const icon = await app.inject({ url: '/app/icon-192.png' });
    assert.equal(icon.headers['content-type'], 'image/png');
    assert.equal(icon.headers['service-worker-allowed'], undefined);
    // index.html is the pages' own answer, not a file of its own; other names are pages.
    assert.equal((await app.inject({ url: '/app/sw2.js' })).body, html);
  });

  test('hashed assets: cached a year, immutable, brotli or gzip when asked; a missing one is 404, not the HTML', async () => {
    const plain = await app.inject({ url: '/app/assets/index-abc123.js' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, js);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(plain.headers['content-type']), /javascript/);
    security(plain.headers);
    const br = await app.inject({ url: '/app/assets/index-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), js);
    const gz = await app.inject({ url: '/app/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    const missing = await app.inject({ url: '/app/assets/index-zzz.js' });
    assert.equal(missing.statusCode, 404);
    assert.notEqual(missing.body, html);
  });

  test('/ redirects to /app; the API and its headers are untouched', async () => {
    const root = await app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/app');
    const api = await app.inject({ url: '/api/v1/contacts' });
    assert.equal(api.statusCode, 401);
    assert.equal(api.headers['content-security-policy'], undefined);
  });

  test('without a build there is no /app (and no redirect); builtAppDir finds only a real build', async () => {
    assert.equal((await bare.inject({ url: '/app' })).statusCode, 404);
    assert.equal((await bare.inject({ url: '/' })).statusCode, 404);
    assert.equal(builtAppDir(os.tmpdir()), null);
    const found = builtAppDir(import.meta.dirname);
    assert.ok(found === null || fs.existsSync(path.join(found, 'index.html')));
  });
});
