import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp, outboxEvents } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('invoices', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let contactId: number;

  const outbox = () => outboxEvents(t.db, ws.workspace.id);

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' })).body.data.id;
  });
  after(() => t.close());

  test('create: 201 with defaults; GET expanded with contact {id, first_name, last_name}, job and line items', async () => {
    const job = (await api.post('/api/v1/jobs', { name: 'Deck' })).body.data;
    const ev = async () => (await api.post('/api/v1/events', { start_date: '2025-07-01', end_date: '2025-07-01' })).body.data.id as number;
    const [e1, e2] = [await ev(), await ev()];
    const before = (await outbox()).length;
    const res = await api.post('/api/v1/invoices', {
      name: 'INV-1',
      contact_id: contactId,
      job_id: job.id,
      date: '2025-07-01',
      due_date: '2025-07-31',
      send_on: '2025-07-02',
      line_items: [{ name: 'Deck boards', unitPrice: 19.99, quantity: 1.5 }],
      event_ids: [e2, e1],
    });
    assert.equal(res.status, 201);
    const inv = res.body.data;
    assert.deepEqual([inv.status, inv.type, inv.payment_terms, inv.parent_id, inv.quote_id], ['draft', 'one-off', 'due_on_receipt', null, null]);
    assert.equal(inv.total, 29.99);
    assert.deepEqual(inv.event_ids, [e2, e1], 'stored as given');
    assert.equal(inv.workspace_id, ws.workspace.id);
    const got = (await api.get(`/api/v1/invoices/${inv.id}`)).body.data;
    assert.deepEqual(got.contact, { id: contactId, first_name: 'Ada', last_name: 'Lovelace' });
    assert.deepEqual(got.job, { id: job.id, number: job.number, name: 'Deck', status: 'draft' });
    assert.equal(got.line_items[0]._type, 'lineItem');
    assert.deepEqual([got.date, got.due_date, got.send_on], ['2025-07-01', '2025-07-31', '2025-07-02']);
    const events = (await outbox()).slice(before);
    assert.deepEqual(
      events.map((e) => e.event),
      ['new_invoice'],
    );
    assert.deepEqual(events[0].data, got);
  });

  test("D11: event_ids must be events of the caller's workspace", async () => {
    const other = await seedWorkspace(t.db);
    const foreign = (await client(t.app, other.token).post('/api/v1/events', { start_date: '2025-07-01', end_date: '2025-07-01' })).body.data.id;
    const before = (await api.get('/api/v1/invoices?per_page=100')).body.data.length;
    for (const ids of [[foreign], [2_000_000_000]]) {
      const res = await api.post('/api/v1/invoices', { name: 'X', event_ids: ids });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['event_ids', 0]);
    }
    assert.equal((await api.get('/api/v1/invoices?per_page=100')).body.data.length, before);
  });

  test('D16: invoice_sent and invoice_paid when entering those statuses, by any path, once', async () => {
    const before = (await outbox()).length;
    const a = (await api.post('/api/v1/invoices', { name: 'A' })).body.data;
    await api.put(`/api/v1/invoices/${a.id}/status`, { status: 'sent' });
    await api.put(`/api/v1/invoices/${a.id}/status`, { status: 'sent' }); // staying: nothing
    await api.put(`/api/v1/invoices/${a.id}`, { status: 'paid' });
    await api.put(`/api/v1/invoices/${a.id}`, { message: 'thanks' });
    const b = (await api.post('/api/v1/invoices', { name: 'B', status: 'sent' })).body.data;
    const events = (await outbox()).slice(before).filter((e) => e.event !== 'invoice_updated'); // E14's, one per write
    assert.deepEqual(
      events.map((e) => [e.event, e.data.id]),
      [
        ['new_invoice', a.id],
        ['invoice_sent', a.id],
        ['invoice_paid', a.id],
        ['new_invoice', b.id],
        ['invoice_sent', b.id],
      ],
    );
    assert.equal(events[2].data.status, 'paid');
  });

  test('two concurrent "mark paid" give one invoice_paid', async () => {
    const inv = (await api.post('/api/v1/invoices', { status: 'sent' })).body.data;
    const before = (await outbox()).length;
    const results = await Promise.all([1, 2, 3].map(() => api.put(`/api/v1/invoices/${inv.id}/status`, { status: 'paid' })));
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200],
    );
    assert.deepEqual(
      (await outbox())
        .slice(before)
        .map((e) => e.event)
        .filter((e) => e !== 'invoice_updated'), // E14's, one per write
      ['invoice_paid'],
    );
  });

  test('bad input: 400 Invalid request with details, nothing written', async () => {
    const other = await seedWorkspace(t.db);
    const foreignJob = (await client(t.app, other.token).post('/api/v1/jobs', {})).body.data.id;
    const count = async () => (await t.db.selectFrom('invoices').select('id').where('workspace_id', '=', ws.workspace.id).execute()).length;
    const before = await count();
    const events = (await outbox()).length;
    for (const [body, path] of [
      [{ status: 'void' }, ['status']],
      [{ payment_terms: 'net_45' }, ['payment_terms']],
      [{ type: 'monthly' }, ['type']],
      [{ due_date: '2025-7-1' }, ['due_date']],
      [{ event_ids: ['a'] }, ['event_ids', 0]],
      [{ event_ids: Array.from({ length: 101 }, (_, i) => i + 1) }, ['event_ids']],
      [{ line_items: [{ name: 'a', unitPrice: 1e10 }] }, ['line_items', 0, 'unitPrice']],
      [{ discount: 10, discount_unit: '€' }, ['discount_unit']],
      [{ job_id: foreignJob }, ['job_id']],
      [{ parent_id: 999999 }, ['parent_id']],
    ] as [unknown, (string | number)[]][]) {
      const res = await api.post('/api/v1/invoices', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body).slice(0, 60));
    }
    const inv = (await api.post('/api/v1/invoices', {})).body.data;
    const self = await api.put(`/api/v1/invoices/${inv.id}`, { parent_id: inv.id });
    assert.equal(self.status, 400);
    assert.deepEqual(self.body.details[0].path, ['parent_id']);
    assert.equal(await count(), before + 1);
    assert.equal((await outbox()).length, events + 1);
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    let contact: number;
    let jobId: number;
    before(async () => {
      const fresh = await seedWorkspace(t.db);
      mine = client(t.app, fresh.token);
      contact = (await mine.post('/api/v1/contacts', { first_name: 'L', last_name: 'M' })).body.data.id;
      jobId = (await mine.post('/api/v1/jobs', {})).body.data.id;
      ids = [];
      const parent = (await mine.post('/api/v1/invoices', { name: 'Parent', contact_id: contact, status: 'sent' })).body.data.id;
      ids.push(parent);
      ids.push((await mine.post('/api/v1/invoices', { name: 'Child', parent_id: parent, job_id: jobId, status: 'draft' })).body.data.id);
      ids.push((await mine.post('/api/v1/invoices', { name: 'Other', contact_id: contact, job_id: jobId, status: 'cancelled' })).body.data.id);
    });

    test('items carry exactly the SPEC fields (and E1 number, E4 amount_paid, balance); contact_id, job_id, exclude_children, exclude_statuses', async () => {
      const res = await mine.get('/api/v1/invoices');
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['amount_paid', 'balance', 'contact_id', 'date', 'due_date', 'id', 'name', 'number', 'status', 'total'], 'E1, E4: number, amount_paid, balance');
      const get = async (q: string) => (await mine.get(`/api/v1/invoices?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get(`contact_id=${contact}`), [ids[2], ids[0]]);
      assert.deepEqual(await get(`job_id=${jobId}`), [ids[2], ids[1]]);
      assert.deepEqual(await get('exclude_children=true'), [ids[2], ids[0]]);
      assert.deepEqual(await get('exclude_children=false'), [...ids].reverse());
      assert.deepEqual(await get('exclude_statuses=cancelled,draft'), [ids[0]]);
      assert.deepEqual(await get('status=draft'), [ids[1]]);
      assert.deepEqual(await get('search=chi'), [ids[1]]);
      for (const q of ['exclude_statuses=void', 'exclude_children=maybe', 'job_id=-1']) assert.equal((await mine.get(`/api/v1/invoices?${q}`)).status, 400, q);
    });
  });

  test('status endpoint: required, any invoice status, 404 and scope; delete is permanent and frees children', async () => {
    const parent = (await api.post('/api/v1/invoices', {})).body.data;
    const child = (await api.post('/api/v1/invoices', { parent_id: parent.id })).body.data;
    assert.equal((await api.put(`/api/v1/invoices/${parent.id}/status`, { status: 'partially_paid' })).body.data.status, 'partially_paid');
    assert.equal((await api.put(`/api/v1/invoices/${parent.id}/status`, {})).status, 400);
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:read']));
    assert.equal((await reader.put(`/api/v1/invoices/${parent.id}/status`, { status: 'paid' })).status, 403);
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    assert.deepEqual((await other.get(`/api/v1/invoices/${parent.id}`)).body, { success: false, error: 'Invoice not found' });
    assert.equal((await api.delete(`/api/v1/invoices/${parent.id}`)).status, 200);
    assert.equal((await api.get(`/api/v1/invoices/${parent.id}`)).status, 404);
    assert.equal((await api.get(`/api/v1/invoices/${child.id}`)).body.data.parent_id, null);
  });
});
