import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp, outboxEvents } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('requests', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let contactId: number;

  const outbox = () => outboxEvents(t.db, ws.workspace.id);

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+1555' })).body.data.id;
  });
  after(() => t.close());

  test('create: 201 with every field, status new, a number; new_request carries the D33 shape', async () => {
    const member = await seedUser(t.db, ws.workspace.id);
    const before = (await outbox()).length;
    const res = await api.post('/api/v1/requests', {
      contact_id: contactId,
      assignee_id: member.user_id,
      details: 'Gutters overflow',
      assessment: 'Visit Tuesday',
      requested_on: '2025-05-01T09:30:00Z',
      data: { service_type: 'gutters', source: 'phone' },
      custom_fields: { urgency: 'high' },
    });
    assert.equal(res.status, 201);
    const r = res.body.data;
    assert.equal(r.number, 1);
    assert.equal(r.status, 'new');
    assert.equal(r.name, null);
    assert.equal(r.property_id, null);
    assert.equal(r.workspace_id, ws.workspace.id);
    assert.deepEqual(r.data, { service_type: 'gutters', source: 'phone' });
    assert.equal(r.requested_on, '2025-05-01T09:30:00Z');
    assert.equal(r.assignee_id, member.user_id);
    const events = (await outbox()).slice(before);
    assert.equal(events.length, 1);
    assert.equal(events[0].event, 'new_request');
    // D33: name falls back to the contact's full name; email and phone are the contact's.
    assert.deepEqual(events[0].data, {
      id: r.id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+1555',
      service_type: 'gutters',
      message: 'Gutters overflow',
      status: 'new',
      created_at: r.created_at,
    });
    const named = await api.post('/api/v1/requests', { name: 'Roof leak', requested_on: '2025-05-02' });
    const last = (await outbox()).at(-1)!;
    assert.deepEqual([last.data.name, last.data.email, last.data.service_type, last.data.message], ['Roof leak', null, null, null]);
    assert.equal(named.body.data.requested_on, '2025-05-02');
  });

  test('request_updated on any change, by PUT or the status endpoint, with the GET shape; none when nothing changed', async () => {
    const { body } = await api.post('/api/v1/requests', { name: 'Fence' });
    const id = body.data.id;
    const before = (await outbox()).length;
    const put = await api.put(`/api/v1/requests/${id}`, { assessment: 'Two panels' });
    assert.equal(put.body.data.assessment, 'Two panels');
    assert.equal(put.body.data.name, 'Fence', 'partial update');
    const status = await api.put(`/api/v1/requests/${id}/status`, { status: 'responded' });
    assert.equal(status.status, 200);
    assert.deepEqual(
      [status.body.data.id, status.body.data.status, status.body.data.number, status.body.data.name],
      [id, 'responded', body.data.number, 'Fence'],
    );
    await api.put(`/api/v1/requests/${id}`, { name: 'Fence' }); // no change
    const events = (await outbox()).slice(before);
    assert.deepEqual(
      events.map((e) => e.event),
      ['request_updated', 'request_updated'],
    );
    assert.deepEqual(events[1].data, status.body.data, 'data is the request as its GET returns it');
  });

  test('bad input: 400 Invalid request with details, nothing written', async () => {
    const other = await seedWorkspace(t.db);
    const foreign = (await client(t.app, other.token).post('/api/v1/contacts', { first_name: 'X', last_name: 'Y' })).body.data.id;
    const before = (await api.get('/api/v1/requests?per_page=100')).body.data.length;
    const events = (await outbox()).length;
    for (const [body, path] of [
      [{ status: 'open' }, ['status']],
      [{ contact_id: foreign }, ['contact_id']],
      [{ property_id: 999999 }, ['property_id']],
      [{ assignee_id: other.owner.user_id }, ['assignee_id']],
      [{ requested_on: 'yesterday' }, ['requested_on']],
      [{ name: 'x'.repeat(256) }, ['name']],
      [{ details: 'x'.repeat(10_001) }, ['details']],
    ] as [unknown, string[]][]) {
      const res = await api.post('/api/v1/requests', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path);
    }
    assert.equal((await api.get('/api/v1/requests?per_page=100')).body.data.length, before);
    assert.equal((await outbox()).length, events);
    const { body } = await api.post('/api/v1/requests', {});
    for (const b of [{}, { status: 'open' }]) assert.equal((await api.put(`/api/v1/requests/${body.data.id}/status`, b)).status, 400);
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    let contact: number;
    before(async () => {
      const fresh = await seedWorkspace(t.db);
      mine = client(t.app, fresh.token);
      contact = (await mine.post('/api/v1/contacts', { first_name: 'L', last_name: 'M' })).body.data.id;
      ids = [];
      for (const [name, status, c] of [
        ['Deck', 'new', contact],
        ['Pool', 'responded', null],
        ['Shed', 'archived', contact],
      ] as const) {
        ids.push((await mine.post('/api/v1/requests', { name, status, contact_id: c })).body.data.id);
      }
    });

    test('filters: contact_id, comma-separated status, search; newest first', async () => {
      const get = async (q: string) => (await mine.get(`/api/v1/requests?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get(`contact_id=${contact}`), [ids[2], ids[0]]);
      assert.deepEqual(await get('status=new,responded'), [ids[1], ids[0]]);
      assert.deepEqual(await get('search=pool'), [ids[1]]);
      assert.deepEqual(await get('sort_by=number&sort_direction=asc'), ids);
      assert.equal((await mine.get('/api/v1/requests?status=open')).status, 400);
    });
  });

  test('D12 delete is permanent; scope requests:*; foreign ids 404', async () => {
    const { body } = await api.post('/api/v1/requests', { name: 'Gone' });
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    assert.deepEqual((await other.get(`/api/v1/requests/${body.data.id}`)).body, { success: false, error: 'Request not found' });
    assert.equal((await other.put(`/api/v1/requests/${body.data.id}/status`, { status: 'archived' })).status, 404);
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['requests:read']));
    assert.equal((await reader.get(`/api/v1/requests/${body.data.id}`)).status, 200);
    assert.equal((await reader.delete(`/api/v1/requests/${body.data.id}`)).status, 403);
    assert.equal((await reader.put(`/api/v1/requests/${body.data.id}/status`, { status: 'archived' })).status, 403);
    const quote = (await api.post('/api/v1/quotes', { request_id: body.data.id })).body.data;
    assert.deepEqual((await api.delete(`/api/v1/requests/${body.data.id}`)).body, { success: true, data: { deleted: true } });
    assert.equal((await api.get(`/api/v1/requests/${body.data.id}`)).status, 404);
    assert.equal((await api.get(`/api/v1/quotes/${quote.id}`)).body.data.request_id, null);
  });
});
