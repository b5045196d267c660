import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { EVENTS } from '../../outbox/emit.ts';

// SPEC "Webhook subscription endpoints" with D3, D4, D15, D17, D21, D31, D32.

type Ws = Awaited<ReturnType<typeof seedWorkspace>>;

/** DELETE with a JSON body (the shared client sends none on DELETE). */
async function unsubscribe(t: TestApp, token: string | null, body: unknown) {
  const res = await t.app.inject({
    method: 'DELETE',
    url: '/api/webhooks/unsubscribe',
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.statusCode, body: res.json() };
}

describe('webhook subscription endpoints', () => {
  let t: TestApp;
  let a: Ws;
  let b: Ws;
  before(async () => {
    t = await buildTestApp();
    a = await seedWorkspace(t.db, 'Hooks A');
    b = await seedWorkspace(t.db, 'Hooks B');
  });
  after(() => t.close());

  test('subscribe answers 201 with the subscription and its secret, once (D3, D15)', async () => {
    const api = client(t.app, a.token);
    const res = await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: 'https://hooks.example.com/in' });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const s = res.body.subscription;
    assert.deepEqual(Object.keys(s).sort(), ['created_at', 'id', 'is_active', 'secret', 'trigger_event', 'webhook_url']);
    assert.equal(typeof s.id, 'number');
    assert.equal(s.trigger_event, 'new_contact');
    assert.equal(s.webhook_url, 'https://hooks.example.com/in');
    assert.equal(s.is_active, true);
    assert.match(s.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.match(s.secret, /^[0-9a-f]{64}$/);
    const other = await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: 'https://hooks.example.com/in' });
    assert.notEqual(other.body.subscription.secret, s.secret, 'each subscription has its own secret');
    const listed = (await api.get('/api/webhooks/list')).body.subscriptions.find((x: { id: number }) => x.id === s.id);
    assert.equal(listed.secret, undefined, 'the secret is never listed');
  });

  test('every one of the nine events can be subscribed; list filters by trigger_event and counts', async () => {
    const c = await seedWorkspace(t.db, 'Hooks C');
    const api = client(t.app, c.token);
    for (const event of EVENTS) {
      assert.equal((await api.post('/api/webhooks/subscribe', { trigger_event: event, webhook_url: `http://example.com/${event}` })).status, 201);
    }
    const all = await api.get('/api/webhooks/list');
    assert.equal(all.status, 200);
    assert.equal(all.body.success, true);
    assert.equal(all.body.count, EVENTS.length);
    assert.equal(all.body.subscriptions.length, EVENTS.length);
    assert.deepEqual(Object.keys(all.body.subscriptions[0]).sort(), ['created_at', 'id', 'is_active', 'last_triggered_at', 'trigger_event', 'webhook_url']);
    assert.equal(all.body.subscriptions[0].last_triggered_at, null);
    // D1: newest first.
    assert.deepEqual(
      all.body.subscriptions.map((s: { trigger_event: string }) => s.trigger_event),
      [...EVENTS].reverse(),
    );
    const paid = await api.get('/api/webhooks/list?trigger_event=invoice_paid');
    assert.equal(paid.body.count, 1);
    assert.equal(paid.body.subscriptions[0].webhook_url, 'http://example.com/invoice_paid');
    const bad = await api.get('/api/webhooks/list?trigger_event=nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'Invalid request');
    assert.deepEqual(bad.body.details[0].path, ['trigger_event']);
  });

  test('bad input: unknown trigger_event, missing fields, non-http(s) or relative URLs are 400 Invalid request with details (D4, D17)', async () => {
    const api = client(t.app, a.token);
    const cases: [unknown, string][] = [
      [{ trigger_event: 'contact_created', webhook_url: 'https://x.example/' }, 'trigger_event'],
      [{ webhook_url: 'https://x.example/' }, 'trigger_event'],
      [{ trigger_event: 'new_contact' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: '/relative/path' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: 'ftp://x.example/' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: 'javascript:alert(1)' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: 'x.example/hook' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: '' }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: `https://x.example/${'a'.repeat(3000)}` }, 'webhook_url'],
      [{ trigger_event: 'new_contact', webhook_url: 42 }, 'webhook_url'],
    ];
    const before = (await api.get('/api/webhooks/list')).body.count;
    for (const [body, field] of cases) {
      const res = await api.post('/api/webhooks/subscribe', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Invalid request');
      assert.ok(
        res.body.details.some((d: { path: string[] }) => d.path[0] === field),
        `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`,
      );
    }
    assert.equal((await api.get('/api/webhooks/list')).body.count, before, 'nothing was stored');
    const json = await api.post('/api/webhooks/subscribe', '{not json');
    assert.deepEqual(json.body, { success: false, error: 'Invalid JSON body' });
  });

  test('scopes: webhooks:write to subscribe and unsubscribe, webhooks:read to list', async () => {
    const embed = await keyFor(t.db, a.workspace.id, 'embed_forms'); // forms:read, forms:write, webhooks:read
    const body = { trigger_event: 'new_request', webhook_url: 'https://x.example/' };
    const denied = await client(t.app, embed).post('/api/webhooks/subscribe', body);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: webhooks:write' });
    assert.deepEqual(await unsubscribe(t, embed, { subscription_id: 1 }), {
      status: 403,
      body: { success: false, error: 'Insufficient permissions. Required scope: webhooks:write' },
    });
    assert.equal((await client(t.app, embed).get('/api/webhooks/list')).status, 200);

    const plugin = await keyFor(t.db, a.workspace.id, 'plugin'); // no webhooks scope at all
    const listDenied = await client(t.app, plugin).get('/api/webhooks/list');
    assert.equal(listDenied.status, 403);
    assert.equal(listDenied.body.error, 'Insufficient permissions. Required scope: webhooks:read');

    const automation = await keyFor(t.db, a.workspace.id, 'automation'); // webhooks:read + webhooks:write
    const created = await client(t.app, automation).post('/api/webhooks/subscribe', body);
    assert.equal(created.status, 201);
    assert.equal((await unsubscribe(t, automation, { subscription_id: created.body.subscription.id })).status, 200);

    const rest = await keyFor(t.db, a.workspace.id, 'rest', ['webhooks:write']);
    assert.equal((await client(t.app, rest).post('/api/webhooks/subscribe', body)).status, 201);
    assert.equal((await client(t.app, rest).get('/api/webhooks/list')).status, 403);
  });

  test('authentication: missing header, unknown key, key without a user (D2, D28)', async () => {
    const anon = await client(t.app).get('/api/webhooks/list');
    assert.deepEqual([anon.status, anon.body], [401, { success: false, error: 'Missing authorization header' }]);
    const bogus = await client(t.app, `wk_abcdefgh.${'0'.repeat(64)}`).post('/api/webhooks/subscribe', {});
    assert.deepEqual([bogus.status, bogus.body], [401, { success: false, error: 'Invalid API key' }]);
    const unlinked = await keyFor(t.db, a.workspace.id, 'automation', undefined, { userId: null });
    const res = await unsubscribe(t, unlinked, { subscription_id: 1 });
    assert.equal(res.status, 403);
    assert.equal(res.body.error, 'API key must be associated with a user. Please recreate the key.');
  });

  test("unsubscribe: 200 with a message, then 404; another workspace's id is 404 Subscription not found and stays (D17, D32)", async () => {
    const api = client(t.app, a.token);
    const mine = (await api.post('/api/webhooks/subscribe', { trigger_event: 'new_job', webhook_url: 'https://x.example/a' })).body.subscription;
    const theirs = (await client(t.app, b.token).post('/api/webhooks/subscribe', { trigger_event: 'new_job', webhook_url: 'https://x.example/b' })).body
      .subscription;

    const foreign = await unsubscribe(t, a.token, { subscription_id: theirs.id });
    const absent = await unsubscribe(t, a.token, { subscription_id: 2_000_000_000 });
    assert.deepEqual(foreign, { status: 404, body: { success: false, error: 'Subscription not found' } });
    assert.deepEqual(absent, foreign, "another workspace's id answers exactly like an absent one");
    const bList = (await client(t.app, b.token).get('/api/webhooks/list?trigger_event=new_job')).body;
    assert.deepEqual(
      bList.subscriptions.map((s: { id: number }) => s.id),
      [theirs.id],
      'B keeps its subscription',
    );

    const ok = await unsubscribe(t, a.token, { subscription_id: mine.id });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.success, true);
    assert.equal(typeof ok.body.message, 'string');
    assert.deepEqual(Object.keys(ok.body).sort(), ['message', 'success']);
    assert.equal((await api.get('/api/webhooks/list?trigger_event=new_job')).body.count, 0);
    assert.deepEqual(await unsubscribe(t, a.token, { subscription_id: mine.id }), foreign, 'gone is gone');

    const bad = await unsubscribe(t, a.token, { subscription_id: 'abc' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'Invalid request');
    assert.deepEqual(bad.body.details[0].path, ['subscription_id']);
    const missing = await unsubscribe(t, a.token, {});
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.details[0].path, ['subscription_id']);
  });

  test("lists never show another workspace's subscriptions", async () => {
    const d = await seedWorkspace(t.db, 'Hooks D');
    await client(t.app, a.token).post('/api/webhooks/subscribe', { trigger_event: 'invoice_sent', webhook_url: 'https://x.example/secret-a' });
    const res = await client(t.app, d.token).get('/api/webhooks/list');
    assert.deepEqual(res.body, { success: true, subscriptions: [], count: 0 });
  });

  test('D21: a legacy key lists with its own workspace_id; without it 400, with another 401; wk_ keys ignore it', async () => {
    const legacy = await keyFor(t.db, a.workspace.id, 'automation', undefined, { legacy: true });
    assert.doesNotMatch(legacy, /^wk_/);
    const api = client(t.app, legacy);
    const without = await api.get('/api/webhooks/list');
    assert.equal(without.status, 400);
    assert.equal(without.body.error, 'Invalid request');
    assert.deepEqual(without.body.details[0].path, ['workspace_id']);
    const foreign = await api.get(`/api/webhooks/list?workspace_id=${b.workspace.id}`);
    assert.deepEqual([foreign.status, foreign.body], [401, { success: false, error: 'Invalid API key' }]);
    const junk = await api.get('/api/webhooks/list?workspace_id=abc');
    assert.equal(junk.status, 401);
    const own = await api.get(`/api/webhooks/list?workspace_id=${a.workspace.id}`);
    assert.equal(own.status, 200);
    const viaWk = await client(t.app, a.token).get('/api/webhooks/list');
    assert.deepEqual(own.body, viaWk.body);

    // wk_ keys ignore the parameter, whatever it holds.
    assert.deepEqual((await client(t.app, a.token).get(`/api/webhooks/list?workspace_id=${b.workspace.id}`)).body, viaWk.body);
    assert.deepEqual((await client(t.app, a.token).get('/api/webhooks/list?workspace_id=abc')).body, viaWk.body);
  });

  test('D31: legacy keys subscribe and unsubscribe in their own workspace like any key', async () => {
    const legacy = await keyFor(t.db, a.workspace.id, 'automation', undefined, { legacy: true });
    const created = await client(t.app, legacy).post('/api/webhooks/subscribe', { trigger_event: 'quote_accepted', webhook_url: 'https://x.example/l' });
    assert.equal(created.status, 201);
    const listed = (await client(t.app, a.token).get('/api/webhooks/list?trigger_event=quote_accepted')).body.subscriptions;
    assert.ok(
      listed.some((s: { id: number }) => s.id === created.body.subscription.id),
      "in the key's own workspace",
    );
    assert.equal((await unsubscribe(t, legacy, { subscription_id: created.body.subscription.id })).status, 200);
    const theirs = (await client(t.app, b.token).post('/api/webhooks/subscribe', { trigger_event: 'quote_accepted', webhook_url: 'https://x.example/m' })).body
      .subscription;
    assert.equal((await unsubscribe(t, legacy, { subscription_id: theirs.id })).status, 404);
  });

  test('a workspace holds at most 100 subscriptions', async () => {
    const e = await seedWorkspace(t.db, 'Hooks E');
    const api = client(t.app, e.token);
    for (let i = 0; i < 100; i++) {
      assert.equal((await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: `https://x.example/${i}` })).status, 201);
    }
    const over = await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: 'https://x.example/101' });
    assert.equal(over.status, 400);
    assert.equal(over.body.error, 'Invalid request');
    const first = (await api.get('/api/webhooks/list')).body.subscriptions.at(-1);
    assert.equal((await unsubscribe(t, e.token, { subscription_id: first.id })).status, 200);
    assert.equal((await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: 'https://x.example/101' })).status, 201);
  });

  test('the three routes are in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.ok(doc.paths['/api/webhooks/subscribe']?.post);
    assert.ok(doc.paths['/api/webhooks/list']?.get);
    assert.ok(doc.paths['/api/webhooks/unsubscribe']?.delete);
    assert.ok(doc.paths['/api/webhooks/subscribe'].post.responses['201']);
  });
});

describe('D17: private webhook URLs when WEBHOOK_ALLOW_PRIVATE_URLS is false', () => {
  let t: TestApp;
  let ws: Ws;
  before(async () => {
    t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());

  test('loopback, private, link-local, unspecified and ULA addresses and names are refused at subscribe time', async () => {
    const api = client(t.app, ws.token);
    const refused = [
      'http://127.0.0.1/hook',
      'http://127.1.2.3:8080/hook',
      'http://localhost:3000/hook',
      'http://LOCALHOST./hook',
      'http://10.0.0.5/hook',
      'http://172.16.4.4/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/hook',
      'http://0/hook',
      'http://2130706433/hook', // 127.0.0.1 as one number
      'http://0x7f.1/hook',
      'http://[::1]/hook',
      'http://[::]/hook',
      'http://[fe80::1]/hook',
      'http://[fd12:3456::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:a00:1]/hook',
      'https://[64:ff9b::a9fe:a9fe]/hook',
    ];
    for (const url of refused) {
      const res = await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: url });
      assert.equal(res.status, 400, url);
      assert.equal(res.body.error, 'Invalid request', url);
      assert.deepEqual(res.body.details[0].path, ['webhook_url'], url);
      assert.match(res.body.details[0].message, /private address/, url);
    }
    assert.equal((await api.get('/api/webhooks/list')).body.count, 0);
  });

  test('public addresses are accepted', async () => {
    const api = client(t.app, ws.token);
    for (const url of ['http://93.184.215.14/hook', 'https://[2606:4700:4700::1111]/hook', 'http://8.8.8.8:8080/x?y=1']) {
      assert.equal((await api.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: url })).status, 201, url);
    }
  });
});
