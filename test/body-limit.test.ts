import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';

// Issue 25: a body over the limit sometimes ended in a connection reset instead of the
// 413: the server answered and closed while the client was still sending. It now reads
// and drops the rest of the body (bounded) first, so the client finishes and reads the 413.

describe('a body over the limit, over a real connection', () => {
  let t: TestApp;
  let token: string;
  let port: number;
  before(async () => {
    t = await buildTestApp();
    token = (await seedWorkspace(t.db)).token;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  /** Sends the whole body, as curl does, then reads the answer; any socket error is the outcome. */
  const post = (body: Buffer) =>
    new Promise<{ error: string | null; answer: string }>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let answer = '';
      let error: string | null = null;
      s.on('data', (c: Buffer) => {
        answer += c.toString('latin1');
      });
      s.on('error', (e: NodeJS.ErrnoException) => {
        error = e.code ?? e.message;
      });
      s.on('close', () => resolve({ error, answer }));
      s.write(`POST /api/v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.end(body);
    });

  test('declared over the limit (4 MB against 1 MB): every one of 10 clients sends all of it and reads the 413 in the envelope, no reset', async () => {
    const body = Buffer.alloc(4 * 1024 * 1024, 'a');
    for (let i = 0; i < 10; i++) {
      const { error, answer } = await post(body);
      assert.equal(error, null, `run ${i}: ${error}`);
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.ok(answer.endsWith('{"success":false,"error":"Request body too large"}'), answer);
    }
    const count = await t.db.selectFrom('contacts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, 'nothing written');
  });

  test('the server still answers on a new connection afterwards', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'Ok', last_name: 'After' }),
    });
    assert.equal(res.status, 201);
  });
});
