import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { connectRedis } from '../src/redis.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp } from './helpers.ts';

// D18: per-key limits on /api/v1 with X-RateLimit-* headers and Retry-After on 429.
describe('API rate limit (in memory)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ API_RATE_LIMIT: '3/1m' });
  });
  after(() => t.close());

  test('headers on every response; the 4th request in the window is 429; other keys unaffected', async () => {
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

  test('the OpenAPI document is not rate limited', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.app.inject({ url: '/api/v1/openapi.json' })).statusCode, 200);
  });
});

// With REDIS_URL, two instances share one counter per key.
describe('API rate limit shared through Redis', { skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL not set' }, () => {
  test('two app instances on one database and one Redis share the counter', async () => {
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
