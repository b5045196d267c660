import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KeyAuthenticator } from '../src/http/auth.ts';
import { hashToken } from '../src/kernel/tokens.ts';
import { revokeKey } from '../src/modules/keys/keys.service.ts';
import { buildTestApp, client, seedWorkspace, startServer, type TestApp } from './helpers.ts';

describe('key cache', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());

  test('a known key is looked up once, not on every request', async () => {
    const api = client(t.app, ws.token);
    assert.equal((await api.get('/api/v1/workspace')).status, 200);
    t.queries.length = 0;
    for (let i = 0; i < 5; i++) assert.equal((await api.get('/api/v1/workspace')).status, 200);
    // The first request's `last_used_at` write is not awaited, so it may land here: a write, not a lookup.
    assert.equal(t.queries.filter((q) => q.includes('"api_keys"') && !q.startsWith('update')).length, 0, t.queries.join('\n'));
  });

  test('an entry is found by exactly what was sent: a form key spelled as a header is not the header, and forgetting the key drops both', async () => {
    const authenticator = new KeyAuthenticator(t.db);
    const lookups = () => t.queries.filter((q) => q.includes('"api_keys"') && !q.startsWith('update')).length;
    t.queries.length = 0;
    assert.equal((await authenticator.fromHeader(`Bearer ${ws.token}`)).workspaceId, ws.workspace.id);
    assert.equal((await authenticator.fromToken(ws.token)).workspaceId, ws.workspace.id);
    assert.equal(lookups(), 2, 'one lookup for each way of sending the key');
    await authenticator.fromHeader(`Bearer ${ws.token}`);
    await authenticator.fromToken(ws.token);
    assert.equal(lookups(), 2, 'then both come from the cache');
    // The form's key is a bare token: the header's text, which the cache knows, is still refused there.
    await assert.rejects(authenticator.fromToken(`Bearer ${ws.token}`), { status: 401, message: 'Invalid API key' });
    authenticator.forget(hashToken(ws.token));
    await authenticator.fromHeader(`Bearer ${ws.token}`);
    await authenticator.fromToken(ws.token);
    assert.equal(lookups(), 4, 'forgetting the key dropped the entries of both');
  });

  test('a process caches from its first request once ready: it waits for the change notices first (PostgreSQL)', async (c) => {
    if (t.database.dialect !== 'postgres') return c.skip('only PostgreSQL caches behind change notices');
    const authenticator = KeyAuthenticator.forDatabase(t.database);
    try {
      await authenticator.ready(10_000);
      const lookups = () => t.queries.filter((q) => q.includes('"api_keys"') && !q.startsWith('update')).length;
      t.queries.length = 0;
      await authenticator.fromHeader(`Bearer ${ws.token}`);
      await authenticator.fromHeader(`Bearer ${ws.token}`);
      assert.equal(lookups(), 1, 'the second request comes from the cache');
    } finally {
      await authenticator.close();
    }
  });

  test('two server processes: a key revoked elsewhere is refused by both within one second', async () => {
    const servers = await Promise.all([startServer(t.url), startServer(t.url)]);
    try {
      const get = (base: string) => fetch(`${base}/api/v1/contacts`, { headers: { authorization: `Bearer ${ws.token}` } });
      // Warm both caches with several requests each.
      for (const { base } of servers) for (let i = 0; i < 3; i++) assert.equal((await get(base)).status, 200);
      const keyId = (await t.db.selectFrom('api_keys').select('id').where('workspace_id', '=', ws.workspace.id).executeTakeFirstOrThrow()).id;
      await revokeKey(t.db, keyId);
      const revokedAt = Date.now();
      // Each server: the last request it still answered 200 was sent less than a second
      // after the revocation, and from the first 401 on it refuses the key.
      const lastServed = await Promise.all(
        servers.map(async ({ base }) => {
          let lastOk = Number.NEGATIVE_INFINITY;
          for (;;) {
            const sentAt = Date.now();
            const res = await get(base);
            if (res.status === 401) {
              assert.deepEqual(await res.json(), { success: false, error: 'Invalid API key' });
              assert.equal((await get(base)).status, 401, 'and stays refused');
              return lastOk - revokedAt;
            }
            assert.equal(res.status, 200);
            lastOk = sentAt;
            if (Date.now() - revokedAt > 3000) return Number.POSITIVE_INFINITY;
            await new Promise((r) => setTimeout(r, 10));
          }
        }),
      );
      for (const ms of lastServed) assert.ok(ms < 1000, `still served ${ms} ms after the revocation`);
    } finally {
      for (const { child } of servers) child.kill('SIGTERM');
    }
  });
});
