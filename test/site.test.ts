// F127: compression of text answers, /favicon.ico and /robots.txt, as a browser or a
// crawler asks for them.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';

let t: TestApp;
let token: string;
let hubPath: string;
let quoteId: number;
before(async () => {
  t = await buildTestApp();
  token = (await seedWorkspace(t.db)).token;
  const api = client(t.app, token);
  const contactId = (await api.post('/api/v1/contacts', { first_name: 'Carla', last_name: 'Customer', email: 'carla@example.test' })).body.data.id;
  for (let i = 0; i < 12; i++) await api.post('/api/v1/contacts', { first_name: `Many${i}`, last_name: 'Contacts', info: { note: 'x'.repeat(100) } });
  quoteId = (await api.post('/api/v1/quotes', { name: 'Q', contact_id: contactId, line_items: [{ name: 'Hedge', unitPrice: 10 }] })).body.data.id;
  hubPath = new URL((await api.post(`/api/v1/contacts/${contactId}/hub-link`)).body.data.url).pathname;
});
after(() => t.close());

const get = (url: string, encoding?: string, auth = false) =>
  t.app.inject({ url, headers: { ...(encoding ? { 'accept-encoding': encoding } : {}), ...(auth ? { authorization: `Bearer ${token}` } : {}) } });
const decode = (body: Buffer, encoding: string | undefined) =>
  encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : encoding === 'deflate' ? zlib.inflateSync(body) : body;

describe('compression (F127)', () => {
  test('hub pages, hub.css and JSON above 1 KB are compressed as the client accepts, and decode to the same bytes', async () => {
    for (const [url, auth] of [[hubPath, false], ['/hub/hub.css', false], ['/api/v1/contacts?per_page=100', true], ['/embed/form.js', false]] as const) {
      const plain = await get(url, undefined, auth);
      assert.equal(plain.statusCode, 200, url);
      assert.equal(plain.headers['content-encoding'], undefined, url);
      assert.ok(plain.rawPayload.length > 1024, `${url}: ${plain.rawPayload.length} bytes`);
      for (const [accept, expected] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['deflate', 'deflate']]) {
        const res = await get(url, accept, auth);
        assert.equal(res.headers['content-encoding'], expected, `${url} ${accept}`);
        assert.ok(res.rawPayload.length < plain.rawPayload.length, `${url} ${accept}`);
        const text = decode(res.rawPayload, expected).toString();
        // A hub page carries a fresh CSRF token per render: compare what does not change.
        if (url === hubPath) assert.match(text, /<\/html>\s*$/);
        else assert.equal(text, plain.payload, `${url} ${accept}`);
      }
    }
  });

  test('small answers, PDFs and images are sent as they are', async () => {
    const small = await get('/api/v1/workspace', 'gzip', true);
    assert.equal(small.statusCode, 200);
    assert.ok(small.rawPayload.length < 1024);
    assert.equal(small.headers['content-encoding'], undefined);
    const pdf = await get(`/api/v1/quotes/${quoteId}/pdf`, 'gzip, br', true);
    assert.equal(pdf.statusCode, 200);
    assert.match(String(pdf.headers['content-type']), /application\/pdf/);
    assert.equal(pdf.headers['content-encoding'], undefined);
    const icon = await get('/favicon.ico', 'gzip, br');
    assert.equal(icon.headers['content-encoding'], undefined);
  });

  test('E11: a write answered compressed is stored uncompressed, and its replay decodes to the same answer', async () => {
    const body = JSON.stringify({ first_name: 'Big', last_name: 'Answer', info: { note: 'y'.repeat(3000) } });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `compress-${Date.now()}`, 'accept-encoding': 'gzip' };
    const first = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', payload: body, headers });
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['content-encoding'], 'gzip');
    const replay = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', payload: body, headers: { ...headers, 'accept-encoding': 'identity' } });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.payload, zlib.gunzipSync(first.rawPayload).toString());
    // A large error answer is stored too (not dropped because the payload became a stream).
    const bad = JSON.stringify({ first_name: 'x', info: { note: 'z'.repeat(3000) }, email: 'not-an-email'.repeat(100) });
    const errHeaders = { ...headers, 'idempotency-key': `compress-err-${Date.now()}` };
    const refused = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', payload: bad, headers: errHeaders });
    assert.equal(refused.statusCode, 422);
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', payload: bad, headers: { ...errHeaders, 'accept-encoding': 'identity' } });
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.statusCode, 422);
  });
});

describe('/favicon.ico and /robots.txt (F127)', () => {
  test('a favicon every page can use, cached', async () => {
    const res = await get('/favicon.ico');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/x-icon');
    assert.match(String(res.headers['cache-control']), /max-age=\d+/);
    assert.deepEqual([...res.rawPayload.subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');
    assert.deepEqual([...res.rawPayload.subarray(22, 26)], [0x89, 0x50, 0x4e, 0x47], 'holding a PNG');
  });

  test('robots.txt disallows the hub and the app, as text', async () => {
    const res = await get('/robots.txt');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.equal(res.payload, 'User-agent: *\nDisallow: /hub/\nDisallow: /app/\n');
  });
});
