import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, keyFor, seedWorkspace, type TestApp, withinOneWindow } from './helpers.ts';
import { multipartBody, png } from './upload-fixtures.ts';

// F241: an answer sent before the request's body was read to its end must not leave the
// rest of the body on a kept-alive connection, where the next request would wait behind
// it and never be answered (an outside hostile run lost requests this way after the
// multipart parser refused 5,000 fields 30 ms in). Over real HTTP, on one socket.

interface Answer {
  status: number;
  connection: string | undefined;
  reused: boolean;
  body: string;
}

/** One request through `agent`, given up on after `ms` (an unanswered request fails the test, not the run). */
function request(agent: http.Agent, base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer, ms = 10_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: req.reusedSocket, body: text }));
    });
    req.setTimeout(ms, () => req.destroy(new Error(`${method} ${path}: no answer in ${ms} ms`)));
    // The server may answer and close while the body is still going out: the answer is what counts.
    req.on('error', reject);
    req.end(body);
  });
}

/** 5,000 text parts of 40 characters and a file: past the multipart parser's 20 fields. */
const manyFields = () =>
  multipartBody([...Array.from({ length: 5000 }, (_, i) => ({ name: `f${i}`, value: 'x'.repeat(40) })), { name: 'file', filename: 'a.png', type: 'image/png', data: png() }]);

let t: TestApp;
let base: string;
let token: string;

before(async () => {
  t = await buildTestApp();
  token = (await seedWorkspace(t.db)).token;
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const json = (bytes: number) => Buffer.from(JSON.stringify({ first_name: 'A', last_name: 'B', info: { pad: 'p'.repeat(bytes) } }));

describe('an early refusal keeps the connection usable (F241)', () => {
  // Each case: the refused request, then GET /api/v1/contacts on the same agent (one socket).
  const cases: { name: string; status: number; send: (agent: http.Agent) => Promise<Answer> }[] = [
    {
      name: 'multipart fields limit, workspace logo (5,000 fields)',
      status: 400,
      send: (agent) => {
        const { payload, contentType } = manyFields();
        return request(agent, base, 'PUT', '/api/v1/workspace/logo', { ...bearer(token), 'content-type': contentType }, payload);
      },
    },
    {
      name: 'multipart fields limit, uploads (5,000 fields)',
      status: 400,
      send: (agent) => {
        const { payload, contentType } = manyFields();
        return request(agent, base, 'POST', '/api/v1/uploads', { ...bearer(token), 'content-type': contentType }, payload);
      },
    },
    {
      name: 'multipart boundary refused before the body (71 characters)',
      status: 400,
      send: (agent) => {
        const { payload } = manyFields();
        return request(agent, base, 'POST', '/api/v1/uploads', { ...bearer(token), 'content-type': `multipart/form-data; boundary=${'b'.repeat(71)}` }, payload);
      },
    },
    {
      name: 'body over the limit (2 MB of JSON)',
      status: 413,
      send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(token), 'content-type': 'application/json' }, json(2 * 1024 * 1024)),
    },
    {
      name: 'content type not JSON (400 KB of text)',
      status: 415,
      send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(token), 'content-type': 'text/plain' }, Buffer.alloc(400_000, 'a')),
    },
    {
      name: 'content type not multipart on the logo (400 KB of JSON)',
      status: 415,
      send: (agent) => request(agent, base, 'PUT', '/api/v1/workspace/logo', { ...bearer(token), 'content-type': 'application/json' }, json(400_000)),
    },
    {
      name: 'unknown key, before the body (400 KB of JSON)',
      status: 401,
      send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer('wk_unknown'), 'content-type': 'application/json' }, json(400_000)),
    },
    {
      name: 'no key on an upload, before the body (5,000 fields)',
      status: 401,
      send: (agent) => {
        const { payload, contentType } = manyFields();
        return request(agent, base, 'POST', '/api/v1/uploads', { 'content-type': contentType }, payload);
      },
    },
  ];

  for (const c of cases) {
    test(`${c.name}: ${c.status}, then the next request on the socket is answered`, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const refused = await c.send(agent);
        assert.equal(refused.status, c.status, refused.body);
        assert.equal(JSON.parse(refused.body).success, false);
        const next = await request(agent, base, 'GET', '/api/v1/contacts', bearer(token));
        assert.equal(next.status, 200, next.body);
        // Kept alive, the refusal's socket carried the next request; closed, the agent opened another.
        assert.equal(next.reused, refused.connection !== 'close', `connection: ${refused.connection}`);
      } finally {
        agent.destroy();
      }
    });
  }

  test('rate limit, before the body (400 KB of JSON): 429, then the next request on the socket is answered', async () => {
    // An app of its own, whose keys may make two requests an hour.
    const r = await buildTestApp({ API_RATE_LIMIT: '2/1h' });
    const rBase = await r.app.listen({ port: 0, host: '127.0.0.1' });
    const ws = await seedWorkspace(r.db);
    const other = await keyFor(r.db, ws.workspace.id, 'general');
    await withinOneWindow(3_600_000);
    const limited = ws.token;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const base = rBase;
    const token = other;
    try {
      for (let i = 0; i < 2; i++) assert.equal((await request(agent, base, 'GET', '/api/v1/contacts', bearer(limited))).status, 200);
      const refused = await request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(limited), 'content-type': 'application/json' }, json(400_000));
      assert.equal(refused.status, 429, refused.body);
      const next = await request(agent, base, 'GET', '/api/v1/contacts', bearer(token));
      assert.equal(next.status, 200, next.body);
      assert.equal(next.reused, refused.connection !== 'close');
    } finally {
      agent.destroy();
      await r.close();
    }
  });

  test('a body that stops arriving is given up on: the answer says Connection: close', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        // Declares 400 KB, sends 1 KB and stalls: the key is refused before the body, which never ends.
        const req = http.request(new URL('/api/v1/contacts', base), { method: 'POST', agent, headers: { ...bearer('wk_unknown'), 'content-type': 'application/json', 'content-length': '400000' } }, (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reused: false, body: text });
          });
        });
        req.on('error', reject);
        req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
        req.write(Buffer.alloc(1024, 'a'));
      });
      assert.equal(answer.status, 401);
      assert.equal(answer.connection, 'close');
      assert.equal((await request(agent, base, 'GET', '/api/v1/contacts', bearer(token))).status, 200);
    } finally {
      agent.destroy();
    }
  });
});

describe('a hostile run over kept-alive connections', () => {
  test('4 connections, 30 requests each, hostile and ordinary mixed: every request answered, in the envelope when refused', async () => {
    // A seeded generator: the same run every time (a failure names its seed and step).
    let seed = 0x5eed;
    const next = () => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return (x ^ (x >>> 14)) >>> 0;
    };
    type Kind = { name: string; statuses: number[]; send: (agent: http.Agent) => Promise<Answer> };
    const kinds: Kind[] = [
      { name: 'list contacts', statuses: [200], send: (agent) => request(agent, base, 'GET', '/api/v1/contacts', bearer(token)) },
      {
        name: 'create a contact',
        statuses: [201],
        send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(token), 'content-type': 'application/json' }, Buffer.from('{"first_name":"K","last_name":"A"}')),
      },
      {
        name: 'bad JSON',
        statuses: [400],
        send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(token), 'content-type': 'application/json' }, Buffer.from('{"first_name":')),
      },
      {
        name: 'many multipart fields',
        statuses: [400],
        send: (agent) => {
          const { payload, contentType } = manyFields();
          const [method, path] = next() % 2 ? ['POST', '/api/v1/uploads'] : ['PUT', '/api/v1/workspace/logo'];
          return request(agent, base, method, path, { ...bearer(token), 'content-type': contentType }, payload);
        },
      },
      { name: 'too large', statuses: [413], send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer(token), 'content-type': 'application/json' }, json(1_200_000)) },
      { name: 'not JSON', statuses: [415], send: (agent) => request(agent, base, 'PUT', '/api/v1/workspace', { ...bearer(token), 'content-type': 'text/csv' }, Buffer.alloc(200_000, 'a')) },
      { name: 'unknown key', statuses: [401], send: (agent) => request(agent, base, 'POST', '/api/v1/contacts', { ...bearer('wk_nope'), 'content-type': 'application/json' }, json(300_000)) },
      { name: 'unknown route with a body', statuses: [404], send: (agent) => request(agent, base, 'POST', '/api/v1/nowhere', { ...bearer(token), 'content-type': 'application/json' }, json(300_000)) },
    ];
    const started = Date.now();
    const seen = new Map<string, number>();
    await Promise.all(
      Array.from({ length: 4 }, async (_, connection) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let step = 0; step < 30; step++) {
            const kind = kinds[next() % kinds.length];
            const answer = await kind.send(agent).catch((err: Error) => assert.fail(`connection ${connection} step ${step} (${kind.name}): ${err.message}`));
            assert.ok(kind.statuses.includes(answer.status), `connection ${connection} step ${step} (${kind.name}): ${answer.status} ${answer.body}`);
            if (answer.status >= 400) assert.equal(JSON.parse(answer.body).success, false);
            seen.set(kind.name, (seen.get(kind.name) ?? 0) + 1);
          }
        } finally {
          agent.destroy();
        }
      }),
    );
    assert.equal(seen.size, kinds.length, 'every kind of request was sent');
    assert.ok(Date.now() - started < 60_000, `${Date.now() - started} ms`);
  });
});
