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
import { APP_CSP, builtAppDir } from '../src/http/app-pages.ts';
import { testDatabase } from './helpers.ts';

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
