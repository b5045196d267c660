import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { rateLimiter } from '../src/http/rate-limit.ts';
import { connectRedis } from '../src/redis.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp, withinOneWindow } from './helpers.ts';

// D18: per-key limits on /api/v1 with X-RateLimit-* headers and Retry-After on 429.
describe('API rate limit (in memory)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ API_RATE_LIMIT: '3/1m' });
  });
  after(() => t.close());

  test('headers on every response; the 4th request in the window is 429; other keys unaffected', async () => {
    await withinOneWindow(60_000);
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    for (let i = 1; i <= 3; i++) {
      const res = await api.get('/api/v1/contacts');
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - i));
      assert.ok(Number(res.headers['x-ratelimit-reset']) > 0);
    }
    const limited = await api.get('/api/v1/contacts');
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, { success: false, error: 'Rate limit exceeded. Try again later.' });
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');

    const other = client(t.app, await keyFor(t.db, ws.workspace.id, 'general'));
    assert.equal((await other.get('/api/v1/contacts')).status, 200);
  });

  test('a request refused by its key or its scope is not counted and carries no X-RateLimit-* headers', async () => {
    await withinOneWindow(60_000);
    const ws = await seedWorkspace(t.db);
    const readOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', ['contacts:read']));
    const refused = await readOnly.post('/api/v1/contacts', { first_name: 'No' });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers['x-ratelimit-remaining'], undefined);
    const unknown = await client(t.app, `wk_00000000.${'0'.repeat(64)}`).get('/api/v1/contacts');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.headers['x-ratelimit-remaining'], undefined);
    assert.equal((await readOnly.get('/api/v1/contacts')).headers['x-ratelimit-remaining'], '2', 'the 403 spent none of the budget');
  });

  test('the public file URLs are counted per client address', async () => {
    await withinOneWindow(60_000);
    const get = (remoteAddress: string) => t.app.inject({ url: '/files/public/1/no-such-file.png', remoteAddress });
    for (let i = 1; i <= 3; i++) {
      const res = await get('192.0.2.10');
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers['x-ratelimit-remaining'], String(3 - i));
    }
    const limited = await get('192.0.2.10');
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await get('192.0.2.11')).statusCode, 404, 'another address has its own budget');

    // A key sent along does not make them count per key: four addresses, one key, no 429.
    const ws = await seedWorkspace(t.db);
    await client(t.app, ws.token).get('/api/v1/workspace'); // the key is now cached
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({ url: '/files/public/1/no-such-file.png', remoteAddress: `192.0.2.${20 + i}`, headers: { authorization: `Bearer ${ws.token}` } });
      assert.equal(res.statusCode, 404);
    }
  });

  test('the OpenAPI document is not rate limited', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.app.inject({ url: '/api/v1/openapi.json' })).statusCode, 200);
  });
});

// With REDIS_URL, two instances share one counter per key.
describe('API rate limit shared through Redis', { skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL not set' }, () => {
  test('two app instances on one database and one Redis share the counter', async () => {
    await withinOneWindow(60_000);
    const t = await buildTestApp();
    const config = loadConfig({ API_RATE_LIMIT: '4/1m', REDIS_URL: process.env.TEST_REDIS_URL });
    const redisA = connectRedis(config.redisUrl)!;
    const redisB = connectRedis(config.redisUrl)!;
    const dbB = createDb(t.url);
    const a = await buildApp({ config, database: t.database, redis: redisA, logger: false });
    const b = await buildApp({ config, database: dbB, redis: redisB, logger: false });
    try {
      const ws = await seedWorkspace(t.db);
      const statuses = [];
      for (const app of [a, b, a, b, a, b]) statuses.push((await client(app, ws.token).get('/api/v1/workspace')).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    } finally {
      await a.close();
      await b.close();
      await dbB.close();
      redisA.disconnect();
      redisB.disconnect();
      await t.close();
    }
  });
});

// The one limiter of the API, the hub and the form: a fixed window aligned to the epoch, per key.
for (const store of ['memory', 'redis'] as const) {
  describe(`the fixed-window limiter (${store})`, { skip: store === 'redis' && !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL not set' }, () => {
    test('counts per key within a window, refuses past the budget, and starts again with the next window', async () => {
      const redis = store === 'redis' ? connectRedis(process.env.TEST_REDIS_URL ?? null)! : null;
      try {
        const windowMs = 400;
        // Starts just after a window begins, so the three hits share it.
        await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 5));
        const limiter = rateLimiter({ max: 2, windowMs }, redis, `fieldwork-test-${process.pid}-${Date.now()}`);
        const [a1, a2, a3, b1] = [await limiter.hit('a'), await limiter.hit('a'), await limiter.hit('a'), await limiter.hit('b')];
        assert.deepEqual(
          [a1, a2, a3, b1].map((c) => [c.allowed, c.limit, c.remaining, c.resetSeconds]),
          [
            [true, 2, 1, 1],
            [true, 2, 0, 1],
            [false, 2, 0, 1],
            [true, 2, 1, 1],
          ],
        );
        await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 5));
        const next = await limiter.hit('a');
        assert.deepEqual([next.allowed, next.remaining], [true, 1], 'a new window');
      } finally {
        redis?.disconnect();
      }
    });
  });
}
