import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { buildTestApp, client, seedUser, seedWorkspace, type TestApp } from './helpers.ts';

describe('conventions', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());

  test('GET /healthz and /readyz answer 200', async () => {
    assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
  });

  test('every response carries an X-Request-Id; a sane given one is kept', async () => {
    const a = await t.app.inject({ url: '/healthz' });
    assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const b = await t.app.inject({ url: '/api/v1/contacts', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(b.headers['x-request-id'], 'abc-123');
    const c = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\n' } });
    assert.notEqual(c.headers['x-request-id'], 'bad id\n');
  });

  test('D5: an unknown route is 404 Not found, in the envelope', async () => {
    for (const url of ['/nope', '/api/v1/nope', '/api/v1/contacts/1/nope']) {
      const res = await client(t.app, ws.token).get(url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { success: false, error: 'Not found' });
    }
  });

  test('JSON bodies are capped at 1 MiB: 413 in the envelope, nothing written', async () => {
    const api = client(t.app, ws.token);
    const res = await api.post('/api/v1/contacts', { first_name: 'a', last_name: 'b', info: { blob: 'x'.repeat(1_100_000) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.success, false);
    assert.equal((await api.get('/api/v1/contacts')).body.data.length, 0);
  });

  test('a body that is not JSON at all, or of the wrong type', async () => {
    const api = client(t.app, ws.token);
    assert.deepEqual((await api.post('/api/v1/contacts', 'not json')).body, { success: false, error: 'Invalid JSON body' });
    const arr = await api.post('/api/v1/contacts', [1, 2]);
    assert.equal(arr.status, 422);
    const text = await t.app.inject({ method: 'POST', url: '/api/v1/contacts', payload: 'a=b', headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'text/plain' } });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().success, false);
  });

  test('GET /users lists members with SPEC fields; sort, search, name alias', async () => {
    const m = await seedUser(t.db, ws.workspace.id, 'manager', 'zoe@crew.test');
    const api = client(t.app, ws.token);
    const res = await api.get('/api/v1/users?sort_by=email&sort_direction=asc');
    assert.equal(res.status, 200);
    // E26: cost_rate too, for a caller with reports:read (a general key's read).
    assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['cost_rate', 'email', 'first_name', 'id', 'job_title', 'last_name', 'role', 'user_id']);
    assert.deepEqual(res.body.data.map((u: { email: string }) => u.email), [ws.owner.email, 'zoe@crew.test'].sort());
    const found = await api.get('/api/v1/users?search=zoe');
    assert.deepEqual(found.body.data.map((u: { user_id: string }) => u.user_id), [m.user_id]);
    const byName = await api.get('/api/v1/users?sort_by=name&sort_direction=asc');
    assert.equal(byName.status, 200);
    assert.deepEqual(byName.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
  });

  test('GET /workspace returns the SPEC workspace object', async () => {
    const res = await client(t.app, ws.token).get('/api/v1/workspace');
    // SPEC's fields, and the additive ones of issue 22 (A63, A64, A125).
    const spec = ['about', 'country', 'currency', 'id', 'industry', 'industry_key', 'name', 'slug', 'timezone'];
    const added = ['address', 'email', 'logo_url', 'phone', 'reply_to', 'tax_number', 'website', 'week_start'];
    assert.deepEqual(Object.keys(res.body.data).sort(), [...spec, ...added].sort());
    assert.equal(res.body.data.currency, 'usd');
  });

  test('OpenAPI 3.1 document lists every API route; /docs serves the UI', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    // Every method+path served under /api (but the document itself) must be in the document.
    const served = listRoutes(t);
    assert.ok(served.length >= 7);
    const missing = served.filter((r) => !documented.has(r));
    assert.deepEqual(missing, [], `routes missing from the OpenAPI document: ${missing.join(', ')}`);
    const ui = await t.app.inject({ url: '/docs/' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.headers['content-type'] as string, /html/);
  });

  test('GET /readyz answers 503 when the database does not; /healthz still 200', async () => {
    const config = loadConfig({});
    const unreachable = createDb('postgres://postgres@127.0.0.1:1/none');
    const closed = createDb('sqlite::memory:');
    await sql`select 1`.execute(closed.db); // Kysely closes only a driver it has opened
    await closed.close();
    for (const database of [unreachable, closed]) {
      const app = await buildApp({ config, database, logger: false });
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
      await app.close();
    }
    await unreachable.close();
  });
});

/** `METHOD /path` of every route under /api that is not deliberately hidden. */
function listRoutes(t: TestApp): string[] {
  return t.app.routeTable.filter((r) => r.url.startsWith('/api') && !r.hidden).map((r) => `${r.method} ${r.url}`);
}
