import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, keyFor, ownerSessionToken, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// GET /api/v1/me/notifications and POST /api/v1/me/notifications/read: a person reads
// and clears only their own internal notifications, on both databases.

describe('my notifications', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /** A workspace whose owner and manager are notified of two quotes awaiting response; each acts through its own token. */
  async function seeded() {
    const ws = await seedWorkspace(t.db);
    const manager = await seedUser(t.db, ws.workspace.id, 'manager');
    const member = await seedUser(t.db, ws.workspace.id, 'member');
    const owner = client(t.app, await ownerSessionToken(t.db, ws.workspace.id));
    const asManager = client(t.app, await ownerSessionToken(t.db, ws.workspace.id, manager.user_id));
    const asMember = client(t.app, await ownerSessionToken(t.db, ws.workspace.id, member.user_id));
    const quotes: number[] = [];
    for (const name of ['Roof', 'Gutters']) {
      const q = await owner.post('/api/v1/quotes', { name, status: 'awaiting_response', line_items: [{ name: 'Work', unitPrice: 10, quantity: 1 }] });
      assert.equal(q.status, 201, JSON.stringify(q.body));
      quotes.push(q.body.data.id);
    }
    return { ws, owner, asManager, asMember, quotes };
  }

  test('newest first, each naming what it is about, the unread count in meta; the unread filter and pages', async () => {
    const { asManager, asMember, quotes } = await seeded();
    const all = await asManager.get('/api/v1/me/notifications');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.data.map((n: { name: string; module_type: string; module_id: number; read_at: null }) => [n.name, n.module_type, n.module_id, n.read_at]),
      [
        ['quotes_awaiting_response', 'quote', quotes[1], null],
        ['quotes_awaiting_response', 'quote', quotes[0], null],
      ],
    );
    assert.equal(all.body.data[0].data.name, 'Gutters');
    assert.deepEqual(all.body.meta, { unread_count: 2 });
    assert.deepEqual(all.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    const second = await asManager.get('/api/v1/me/notifications?per_page=1&page=2');
    assert.deepEqual([second.body.data[0].module_id, second.body.pagination.total_pages, second.body.meta.unread_count], [quotes[0], 2, 2]);
    // A member is not among the recipients: an empty list, not someone else's.
    const none = await asMember.get('/api/v1/me/notifications');
    assert.deepEqual([none.body.data, none.body.meta.unread_count, none.body.pagination.total_pages], [[], 0, 0]);
  });

  test('marking some read, then all; another person\'s ids are passed over and stay unread', async () => {
    const { owner, asManager, quotes } = await seeded();
    const mine = (await asManager.get('/api/v1/me/notifications')).body.data as { id: number; module_id: number }[];
    const ownersIds = ((await owner.get('/api/v1/me/notifications')).body.data as { id: number }[]).map((n) => n.id);
    const other = await seeded(); // another workspace's notification ids
    const theirs = ((await other.asManager.get('/api/v1/me/notifications')).body.data as { id: number }[]).map((n) => n.id);

    const some = await asManager.post('/api/v1/me/notifications/read', { ids: [mine[0].id, ...ownersIds, ...theirs] });
    assert.equal(some.status, 200, JSON.stringify(some.body));
    assert.deepEqual(some.body.data, { marked: 1, unread_count: 1 });
    const unread = await asManager.get('/api/v1/me/notifications?unread=true');
    assert.deepEqual(
      unread.body.data.map((n: { module_id: number }) => n.module_id),
      [quotes[0]],
    );
    assert.equal((await owner.get('/api/v1/me/notifications')).body.meta.unread_count, 2, "the owner's stay unread");
    assert.equal((await other.asManager.get('/api/v1/me/notifications')).body.meta.unread_count, 2, "another workspace's stay unread");

    const rest = await asManager.post('/api/v1/me/notifications/read', {});
    assert.deepEqual(rest.body.data, { marked: 1, unread_count: 0 });
    const read = (await asManager.get('/api/v1/me/notifications')).body.data as { read_at: string | null }[];
    assert.ok(read.every((n) => typeof n.read_at === 'string'));
  });

  test('bad input: a clear error in the envelope, nothing marked', async () => {
    const { asManager } = await seeded();
    for (const [body, path] of [
      [{ ids: [] }, 'ids'],
      [{ ids: ['x'] }, 'ids'],
      [{ ids: [0] }, 'ids'],
    ] as const) {
      const res = await asManager.post('/api/v1/me/notifications/read', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.success, false);
      assert.ok(JSON.stringify(res.body.details).includes(path), JSON.stringify(res.body));
    }
    const bad = await asManager.get('/api/v1/me/notifications?unread=maybe');
    assert.equal(bad.status, 400);
    assert.equal((await asManager.get('/api/v1/me/notifications')).body.meta.unread_count, 2);
  });

  test('a request from the embedded form tells the admins and managers (requests_new), not the members', async () => {
    const { ws, owner, asManager, asMember } = await seeded();
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const sent = await client(t.app).post('/api/forms/embed-request', { apiKey: key, formData: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.test', phone: '+1 555 123 4567', description: 'The boiler leaks.' } });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    for (const who of [owner, asManager]) {
      const [latest] = (await who.get('/api/v1/me/notifications')).body.data;
      assert.deepEqual([latest.name, latest.module_type, latest.data.first_name, latest.data.last_name], ['requests_new', 'request', 'Jane', 'Doe']);
    }
    assert.equal((await asMember.get('/api/v1/me/notifications')).body.meta.unread_count, 0);
  });

  test('without a token: 401', async () => {
    assert.equal((await client(t.app).get('/api/v1/me/notifications')).status, 401);
    assert.equal((await client(t.app).post('/api/v1/me/notifications/read', {})).status, 401);
  });
});
