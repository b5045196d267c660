// Issue 23, item 1: every request is answered, whatever runs before or beside it.
// Real HTTP (app.listen on port 0, four requests in flight, as the hostile run sent
// them): a comment whose module_type holds `__proto__`, interleaved with hostile
// neighbours (bad JSON that closes its connection, prototype keys, reused
// Idempotency-Keys, clients that give up mid-request, cut-off and oversized
// uploads, undecodable queries), must always get its 400 at once.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { multipartBody, png } from './upload-fixtures.ts';
import { buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';

let t: TestApp;
let token: string;
let base: string;
let port: number;
let contactId: number;
before(async () => {
  t = await buildTestApp({ API_RATE_LIMIT: '100000/1m' });
  token = (await seedWorkspace(t.db)).token;
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = address;
  port = Number(new URL(address).port);
  const res = await fetch(`${base}/api/v1/contacts`, { method: 'POST', headers: headers(), body: JSON.stringify({ first_name: 'Ada', last_name: 'L' }) });
  contactId = ((await res.json()) as { data: { id: number } }).data.id;
});
after(() => t.close());

const POISON = '{"module_type":{"__proto__":{"polluted":true}},"module_id":1,"comment":"Fuzz note"}';
const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra });

/** One request; the status, or `aborted` when the client gave up on purpose. Fails after 10 s without an answer. */
async function send(method: string, path: string, body?: string | Buffer, extra: Record<string, string> = {}, abortAfterMs?: number): Promise<number | 'aborted'> {
  const signal = AbortSignal.timeout(abortAfterMs ?? 10_000);
  try {
    const res = await fetch(base + path, { method, headers: headers(extra), body: Buffer.isBuffer(body) ? new Uint8Array(body) : body, signal });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    if (abortAfterMs !== undefined) return 'aborted';
    throw new Error(`${method} ${path} ${String(body).slice(0, 80)}: no answer (${String(err)})`);
  }
}

/** A raw request that stops halfway through its body and closes, as a client killed mid-upload. */
function cutOff(path: string, contentType: string, payload: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`);
      socket.write(payload.subarray(0, payload.length >> 1), () => setTimeout(() => socket.destroy(), 5));
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

const upload = () =>
  multipartBody([
    { name: 'module_type', value: 'contact' },
    { name: 'module_id', value: String(contactId) },
    { name: 'file', filename: 'a.png', type: 'image/png', data: png(60, 40, 1) },
  ]);

/** Requests written back to back on one connection (HTTP/1.1 pipelining); the statuses answered before it closes or 5 s pass. */
function pipelined(requests: { path: string; body: string }[]): Promise<number[]> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const statuses = () => [...got.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(statuses());
    };
    const timer = setTimeout(done, 5000);
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (statuses().length === requests.length && got.trimEnd().endsWith('}')) done();
    });
    socket.on('close', done);
    socket.on('error', done);
    socket.on('connect', () =>
      socket.write(
        requests
          .map(({ path, body }) => `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
          .join(''),
      ),
    );
  });
}

test('F128: requests pipelined behind a body that is not JSON are answered, not dropped with the connection', async () => {
  const poison = { path: '/api/v1/comments', body: POISON };
  const bad = { path: '/api/v1/comments', body: '{bad json' };
  assert.deepEqual(await pipelined([bad, poison]), [400, 400]);
  assert.deepEqual(await pipelined([poison, bad, poison, { path: '/api/v1/contacts', body: '{"first_name":"Pipe","last_name":"Lined"}' }]), [400, 400, 400, 201]);
  assert.deepEqual(await pipelined([{ path: '/api/v1/contacts', body: '' }, poison]), [422, 400]); // no body: D4's 422 for contacts
});

/** The neighbours, in a fixed order, so a failure is the same on every run. */
function neighbour(i: number): Promise<unknown> {
  const key = `shared-${i % 3}`;
  const form = upload();
  switch (i % 12) {
    case 0: return i % 24 === 0 ? pipelined([{ path: '/api/v1/comments', body: '{bad json' }, { path: '/api/v1/comments', body: POISON }]).then((s) => assert.deepEqual(s, [400, 400])) : send('POST', '/api/v1/comments', '{bad json');
    case 1: return send('POST', '/api/v1/contacts', '{"first_name":"P","last_name":"Q","__proto__":{"x":1},"constructor":{"prototype":{"y":2}}}', { 'idempotency-key': key });
    case 2: return send('POST', '/api/v1/comments', POISON, { 'idempotency-key': key });
    case 3: return send('POST', '/api/v1/comments', JSON.stringify({ module_type: 'contact', module_id: contactId, comment: 'ok' }), {}, 1 + (i % 7));
    case 4: return cutOff('/api/v1/uploads', form.contentType, form.payload);
    case 5: return send('POST', '/api/v1/uploads', form.payload, { 'content-type': `multipart/form-data; boundary=${'b'.repeat(2000)}` });
    case 6: return send('GET', '/api/v1/contacts?search=a%ED%A0%80b');
    case 7: return send('GET', '/api/v1/contacts/%ED%A0%80');
    case 8: return send('POST', '/api/v1/uploads', form.payload, { 'content-type': form.contentType, 'idempotency-key': key });
    case 9: return send('PUT', `/api/v1/contacts/${contactId}`, '{"info":{"__proto__":{"polluted":1}}}', { 'idempotency-key': key });
    case 10: return send('POST', '/api/v1/comments', 'x'.repeat(2 * 1024 * 1024));
    default: return send('DELETE', '/api/v1/comments/999999', undefined, {}, 2);
  }
}

test('a comment holding __proto__ is answered 400 at once, four in flight beside hostile neighbours', { timeout: 180_000 }, async () => {
  let next = 0;
  const slowest: number[] = [];
  const lane = async (n: number) => {
    for (let round = 0; round < 40; round++) {
      if (n === 0) {
        const started = Date.now();
        assert.equal(await send('POST', '/api/v1/comments', POISON), 400);
        slowest.push(Date.now() - started);
      } else await neighbour(next++);
    }
  };
  await Promise.all([lane(0), lane(1), lane(2), lane(3)]);
  assert.ok(Math.max(...slowest) < 5000, `slowest poisoned request: ${Math.max(...slowest)} ms`);
  // And alone, afterwards.
  assert.equal(await send('POST', '/api/v1/comments', POISON), 400);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
