// E17: the typed client against a real server (the app listening on a port),
// and its retries against a small local server that fails on purpose.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sign, timestampedSignature } from '../../../src/outbox/http-post.ts';
import { buildTestApp, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { createClient, type FieldworkClient, FieldworkError, verifyWebhook } from '../src/index.ts';

let t: TestApp;
let api: FieldworkClient;
let baseUrl: string;
let token: string;
/** Every request the client sent to the real server: method and Idempotency-Key. */
const sent: { method: string; key: string | null }[] = [];

before(async () => {
  t = await buildTestApp();
  token = (await seedWorkspace(t.db)).token;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  api = createClient({
    baseUrl,
    apiKey: token,
    fetch: (request) => {
      sent.push({ method: request.method, key: request.headers.get('idempotency-key') });
      return fetch(request);
    },
  });
});
after(() => t.close());

describe('client against the API', () => {
  test('create, get, list, update and delete a contact, typed end to end', async () => {
    const created = await api.POST('/api/v1/contacts', { body: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test' } });
    assert.equal(created.response.status, 201);
    const id = created.data?.data.id;
    assert.ok(id, 'created id');
    const got = await api.GET('/api/v1/contacts/{id}', { params: { path: { id } } });
    assert.equal(got.data?.data.email, 'ada@example.test');
    const list = await api.GET('/api/v1/contacts', { params: { query: { search: 'Lovelace' } } });
    assert.deepEqual(list.data?.data.map((c) => c.id), [id]);
    assert.equal(list.data?.pagination.total_pages, 1);
    const updated = await api.PUT('/api/v1/contacts/{id}', { params: { path: { id } }, body: { company: 'Analytical Engines' } });
    assert.equal(updated.data?.data.company, 'Analytical Engines');
    const deleted = await api.DELETE('/api/v1/contacts/{id}', { params: { path: { id } } });
    assert.deepEqual(deleted.data, { success: true, data: { deleted: true } });

    // The error envelope is typed: `error.error`, not a thrown exception.
    const gone = await api.GET('/api/v1/contacts/{id}', { params: { path: { id } } });
    assert.equal(gone.response.status, 404);
    assert.equal(gone.data, undefined);
    assert.deepEqual(gone.error, { success: false, error: 'Contact not found' });
    const invalid = await api.POST('/api/v1/contacts', { body: { first_name: '', last_name: 'X', email: 'not an email' } });
    assert.equal(invalid.response.status, 422); // D4
    assert.equal(invalid.error?.error, 'Validation failed');
    assert.ok(invalid.error?.details?.some((d) => d.path.includes('email')), 'details name email');
  });

  test('every write carries an Idempotency-Key, a new one per call; reads none', async () => {
    sent.length = 0;
    const a = await api.POST('/api/v1/contacts', { body: { first_name: 'Key', last_name: 'One' } });
    const b = await api.POST('/api/v1/contacts', { body: { first_name: 'Key', last_name: 'Two' } });
    const id = a.data?.data.id ?? 0;
    await api.PUT('/api/v1/contacts/{id}', { params: { path: { id } }, body: { company: 'K' } });
    await api.GET('/api/v1/contacts/{id}', { params: { path: { id } } });
    await api.DELETE('/api/v1/contacts/{id}', { params: { path: { id: b.data?.data.id ?? 0 } } });
    assert.deepEqual(sent.map((s) => s.method), ['POST', 'POST', 'PUT', 'GET', 'DELETE']);
    const keys = sent.filter((s) => s.method !== 'GET').map((s) => s.key);
    for (const key of keys) assert.match(key ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(sent[3].key, null);
  });

  test('paginate() walks every page of a list', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api.POST('/api/v1/contacts', { body: { first_name: `Page${i}`, last_name: 'Walker' } });
      ids.push(r.data?.data.id ?? 0);
    }
    const pages = [];
    for await (const page of api.paginate('/api/v1/contacts', { query: { search: 'Walker', per_page: 2, sort_by: 'id', sort_direction: 'asc' } })) {
      pages.push(page.data.map((c) => c.id));
      assert.equal(page.pagination.total_pages, 3);
    }
    assert.deepEqual(pages, [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    // A page answered with an error is thrown, with the envelope.
    const bad = createClient({ baseUrl, apiKey: 'wk_1.nope', retries: 0 });
    await assert.rejects(
      async () => {
        for await (const _ of bad.paginate('/api/v1/contacts')) assert.fail('no page');
      },
      (err: unknown) => err instanceof FieldworkError && err.status === 401 && err.body?.success === false,
    );
  });
});

const servers: http.Server[] = [];
// A failed assertion must not leave a server open (the test process would not exit).
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** A local server answering each request with the next scripted step; it records what it got. */
async function flaky(steps: ('reset' | { status: number; headers?: Record<string, string> })[]) {
  const seen: { method: string; key: string | undefined; body: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      seen.push({ method: req.method ?? '', key: req.headers['idempotency-key'] as string | undefined, body: Buffer.concat(chunks).toString(), at: Date.now() });
      const step = steps[Math.min(seen.length - 1, steps.length - 1)];
      if (step === 'reset') return req.socket.destroy();
      const ok = step.status < 300;
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(ok ? { success: true, data: { id: 7 } } : { success: false, error: step.status === 429 ? 'Rate limit exceeded. Try again later.' : 'Service unavailable' }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('client retries', () => {
  test('5xx twice, then success: three attempts of one write, one Idempotency-Key', async () => {
    const s = await flaky([{ status: 503 }, { status: 503 }, { status: 201 }]);
    const c = createClient({ baseUrl: s.url, apiKey: token, retryDelayMs: 10 });
    const r = await c.POST('/api/v1/contacts', { body: { first_name: 'Retry', last_name: 'Me' } });
    await s.close();
    assert.equal(r.response.status, 201);
    assert.equal(r.data?.data.id, 7);
    assert.equal(s.seen.length, 3);
    assert.ok(s.seen[0].key, 'Idempotency-Key sent');
    assert.deepEqual(new Set(s.seen.map((x) => x.key)).size, 1);
    assert.deepEqual(new Set(s.seen.map((x) => x.body)), new Set([JSON.stringify({ first_name: 'Retry', last_name: 'Me' })]));
  });

  test('429 with Retry-After: 1 waits a second before retrying', async () => {
    const s = await flaky([{ status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]);
    const c = createClient({ baseUrl: s.url, apiKey: token, retryDelayMs: 10 });
    const r = await c.GET('/api/v1/contacts/{id}', { params: { path: { id: 7 } } });
    await s.close();
    assert.equal(r.response.status, 200);
    assert.equal(s.seen.length, 2);
    assert.ok(s.seen[1].at - s.seen[0].at >= 950, `waited ${s.seen[1].at - s.seen[0].at} ms`);
  });

  test('a dropped connection is retried with the same key', async () => {
    const s = await flaky(['reset', { status: 201 }]);
    const c = createClient({ baseUrl: s.url, apiKey: token, retryDelayMs: 10 });
    const r = await c.POST('/api/v1/contacts', { body: { first_name: 'Net', last_name: 'Work' } });
    await s.close();
    assert.equal(r.response.status, 201);
    assert.equal(s.seen.length, 2);
    assert.ok(s.seen[0].key, 'Idempotency-Key sent');
    assert.equal(s.seen[0].key, s.seen[1].key);
  });

  test('retryNetworkErrors: false returns a dropped connection at once; a 5xx is still retried', async () => {
    const s = await flaky(['reset', { status: 201 }]);
    const c = createClient({ baseUrl: s.url, apiKey: token, retryDelayMs: 10, retryNetworkErrors: false });
    await assert.rejects(c.POST('/api/v1/contacts', { body: { first_name: 'Net', last_name: 'Work' } }), TypeError);
    await s.close();
    assert.equal(s.seen.length, 1);
    const busy = await flaky([{ status: 503 }, { status: 201 }]);
    const d = createClient({ baseUrl: busy.url, apiKey: token, retryDelayMs: 10, retryNetworkErrors: false });
    assert.equal((await d.POST('/api/v1/contacts', { body: { first_name: 'Net', last_name: 'Work' } })).response.status, 201);
    await busy.close();
    assert.equal(busy.seen.length, 2);
  });

  test('retries are bounded: the last answer is returned, typed', async () => {
    const s = await flaky([{ status: 503 }]);
    const c = createClient({ baseUrl: s.url, apiKey: token, retryDelayMs: 5, retries: 2 });
    const r = await c.DELETE('/api/v1/contacts/{id}', { params: { path: { id: 7 } } });
    assert.equal(r.response.status, 503);
    assert.equal(s.seen.length, 3);
    // A 4xx other than 429 is an answer, not a failure: never retried.
    const once = await flaky([{ status: 404 }]);
    const d = createClient({ baseUrl: once.url, apiKey: token, retryDelayMs: 5 });
    assert.equal((await d.GET('/api/v1/contacts/{id}', { params: { path: { id: 7 } } })).response.status, 404);
    assert.equal(once.seen.length, 1);
    // A Retry-After beyond maxRetryDelayMs is not waited for.
    const long = await flaky([{ status: 429, headers: { 'retry-after': '60' } }]);
    const e = createClient({ baseUrl: long.url, apiKey: token, maxRetryDelayMs: 5000 });
    assert.equal((await e.GET('/api/v1/workspace')).response.status, 429);
    assert.equal(long.seen.length, 1);
    await Promise.all([s.close(), once.close(), long.close()]);
  });
});

describe('onIgnoredFields (E19)', () => {
  test('gets the decoded paths of the answer returned, once, not those of a retried one; the default warns', async () => {
    let n = 0;
    const seen: { fields: string[]; method: string }[] = [];
    const answer = (status: number, ignored: string) => new Response('{"success":true,"data":{}}', { status, headers: { 'content-type': 'application/json', 'fieldwork-ignored-fields': ignored } });
    const api = createClient({
      baseUrl: 'http://fieldwork.invalid',
      apiKey: 'wk_1.x',
      retryDelayMs: 1,
      fetch: async () => (++n === 1 ? answer(503, 'from_the_retry') : answer(201, 'emial, %C3%A9m%2Cail, +3 more')),
      onIgnoredFields: (fields, req) => seen.push({ fields, method: req.method }),
    });
    await api.POST('/api/v1/contacts', { body: { first_name: 'A', last_name: 'B' } });
    assert.deepEqual(seen, [{ fields: ['emial', 'ém,ail', '+3 more'], method: 'POST' }]);

    const warned: unknown[][] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warned.push(args);
    try {
      await createClient({ baseUrl: 'http://fieldwork.invalid', apiKey: 'wk_1.x', fetch: async () => answer(201, 'phon') }).POST('/api/v1/contacts', { body: { first_name: 'A', last_name: 'B' } });
    } finally {
      console.warn = original;
    }
    assert.deepEqual(warned, [['Fieldwork ignored a field of POST http://fieldwork.invalid/api/v1/contacts: phon']]);
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_test_secret';
  const body = JSON.stringify({ event: 'new_contact', workspace_id: 1, timestamp: '2025-01-01T00:00:00.000Z', data: { id: 1 }, meta: { webhook_id: 'x', delivery_attempt: 1, link: 'l' } });
  const now = 1_750_000_000;

  test('accepts a Fieldwork-Signature made by the server, within the tolerance', () => {
    assert.equal(verifyWebhook(body, { 'fieldwork-signature': timestampedSignature(secret, now, body) }, secret, { now }), true);
    assert.equal(verifyWebhook(Buffer.from(body), new Headers({ 'Fieldwork-Signature': timestampedSignature(secret, now - 299, body) }), secret, { now }), true);
    assert.equal(verifyWebhook(body, { 'Fieldwork-Signature': timestampedSignature(secret, now - 500, body) }, secret, { now, toleranceSeconds: 600 }), true);
    // Real time by default.
    const t = Math.floor(Date.now() / 1000);
    assert.equal(verifyWebhook(body, { 'fieldwork-signature': timestampedSignature(secret, t, body) }, secret), true);
  });

  test('refuses stale, future, forged and tampered deliveries', () => {
    const at = (ts: number, b = body, s = secret) => ({ 'fieldwork-signature': timestampedSignature(s, ts, b) });
    assert.equal(verifyWebhook(body, at(now - 301), secret, { now }), false); // a replay
    assert.equal(verifyWebhook(body, at(now + 301), secret, { now }), false);
    assert.equal(verifyWebhook(body, at(now, body, 'another secret'), secret, { now }), false);
    assert.equal(verifyWebhook(`${body} `, at(now), secret, { now }), false);
    // Re-timed: a fresh t with the old v1 does not verify.
    const old = timestampedSignature(secret, now - 3600, body).split(',')[1];
    assert.equal(verifyWebhook(body, { 'fieldwork-signature': `t=${now},${old}` }, secret, { now }), false);
    assert.equal(verifyWebhook(body, { 'fieldwork-signature': 'garbage' }, secret, { now }), false);
    // A bad Fieldwork-Signature is not rescued by a good X-Service-Signature.
    assert.equal(verifyWebhook(body, { ...at(now - 301), 'x-service-signature': sign(secret, body) }, secret, { now }), false);
    assert.equal(verifyWebhook(body, {}, secret, { now }), false);
  });

  test('without Fieldwork-Signature, checks X-Service-Signature', () => {
    assert.equal(verifyWebhook(body, { 'x-service-signature': sign(secret, body) }, secret), true);
    assert.equal(verifyWebhook(body, { 'X-Service-Signature': [sign(secret, body)] }, secret), true);
    assert.equal(verifyWebhook(body, { 'x-service-signature': sign('wrong', body) }, secret), false);
    assert.equal(verifyWebhook(`${body}x`, { 'x-service-signature': sign(secret, body) }, secret), false);
  });
});
