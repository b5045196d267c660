import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp, outboxEvents } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('jobs', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let contactId: number;

  const outbox = () => outboxEvents(t.db, ws.workspace.id);

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace' })).body.data.id;
  });
  after(() => t.close());

  test('create: 201 with defaults (draft, one-off, no expenses), a number and new_job with the GET shape', async () => {
    const before = (await outbox()).length;
    const res = await api.post('/api/v1/jobs', { name: 'Install' });
    assert.equal(res.status, 201);
    const j = res.body.data;
    assert.deepEqual([j.number, j.status, j.type, j.total, j.discount_unit], [1, 'draft', 'one-off', 0, '%']);
    assert.deepEqual(j.expenses, []);
    for (const f of [
      'contact_id',
      'property_id',
      'request_id',
      'quote_id',
      'salesperson_id',
      'expected_end_date',
      'custom_fields',
      'contact',
      'property',
      'request',
      'quote',
      'salesperson',
    ]) {
      assert.equal(j[f], null, f);
    }
    const events = (await outbox()).slice(before);
    assert.deepEqual(
      events.map((e) => e.event),
      ['new_job'],
    );
    assert.deepEqual(events[0].data, (await api.get(`/api/v1/jobs/${j.id}`)).body.data);
  });

  test('D10 expenses: ids assigned, unset fields null; sent back, an expense keeps its id', async () => {
    const res = await api.post('/api/v1/jobs', {
      type: 'recurring',
      expected_end_date: '2025-06-30',
      expenses: [
        { name: 'Gravel', amount: 120.5, date: '2025-06-01', category: 'materials', receipt_upload_id: 7 },
        { name: 'Fuel', amount: 30, date: '2025-06-02' },
      ],
    });
    assert.equal(res.status, 201);
    const [gravel, fuel] = res.body.data.expenses;
    assert.match(gravel.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...gravel, id: 'x' },
      { id: 'x', name: 'Gravel', description: null, date: '2025-06-01', amount: 120.5, category: 'materials', receipt_upload_id: 7 },
    );
    assert.deepEqual({ ...fuel, id: 'x' }, { id: 'x', name: 'Fuel', description: null, date: '2025-06-02', amount: 30, category: null, receipt_upload_id: null });
    assert.equal(res.body.data.total, 0, 'expenses are not line items');
    const put = await api.put(`/api/v1/jobs/${res.body.data.id}`, { expenses: [{ ...fuel, amount: 35 }] });
    assert.deepEqual(put.body.data.expenses, [{ ...fuel, amount: 35 }]);
    assert.equal(put.body.data.type, 'recurring');
  });

  test('E26 expenses: name, an amount above 0 and a date are required, 400 naming expenses.<n>.<field>', async () => {
    const cases: [object, string][] = [
      [{ amount: 5, date: '2025-06-01' }, 'expenses.1.name'],
      [{ name: 'Fuel', amount: 0, date: '2025-06-01' }, 'expenses.1.amount'],
      [{ name: 'Fuel', amount: -3, date: '2025-06-01' }, 'expenses.1.amount'],
      [{ name: 'Fuel', date: '2025-06-01' }, 'expenses.1.amount'],
      [{ name: 'Fuel', amount: 5 }, 'expenses.1.date'],
      [{ name: 'Fuel', amount: 5, date: '2025-13-01' }, 'expenses.1.date'],
    ];
    const before = (await api.get('/api/v1/jobs')).body.pagination;
    for (const [bad, field] of cases) {
      const res = await api.post('/api/v1/jobs', { name: 'Costed', expenses: [{ name: 'Ok', amount: 1, date: '2025-06-01' }, bad] });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.ok(
        res.body.details.some((d: { path: (string | number)[] }) => d.path.join('.') === field),
        `${JSON.stringify(bad)}: ${JSON.stringify(res.body.details)}`,
      );
    }
    assert.deepEqual((await api.get('/api/v1/jobs')).body.pagination, before, 'nothing written');
  });

  test('single GET is expanded with contact, property, request, quote and salesperson', async () => {
    const member = await seedUser(t.db, ws.workspace.id);
    const property = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '9 Elm' } })).body.data;
    const request = (await api.post('/api/v1/requests', { name: 'R' })).body.data;
    const quote = (await api.post('/api/v1/quotes', { name: 'Q' })).body.data;
    const { body } = await api.post('/api/v1/jobs', {
      contact_id: contactId,
      property_id: property.id,
      request_id: request.id,
      quote_id: quote.id,
      salesperson_id: member.user_id,
      line_items: [{ name: 'Labor', unitPrice: 50, quantity: 2 }],
      tax_rate: 10,
    });
    const j = (await api.get(`/api/v1/jobs/${body.data.id}`)).body.data;
    assert.equal(j.total, 110);
    assert.deepEqual([j.contact.id, j.property.address.street, j.request.id, j.salesperson.id], [contactId, '9 Elm', request.id, member.user_id]);
    assert.deepEqual(j.quote, { id: quote.id, number: quote.number, name: 'Q', status: 'draft' });
    assert.equal((await api.get(`/api/v1/quotes/${quote.id}`)).body.data.job.id, j.id);
  });

  test('D14 through the jobs API: a quote that already has a job is 400 on create and update', async () => {
    const quote = (await api.post('/api/v1/quotes', { status: 'accepted' })).body.data;
    const dup = await api.post('/api/v1/jobs', { quote_id: quote.id });
    assert.equal(dup.status, 400);
    assert.deepEqual(dup.body.details[0].path, ['quote_id']);
    const other = (await api.post('/api/v1/jobs', {})).body.data;
    assert.equal((await api.put(`/api/v1/jobs/${other.id}`, { quote_id: quote.id })).status, 400);
    assert.equal((await api.put(`/api/v1/jobs/${quote.job.id}`, { quote_id: quote.id, name: 'Same quote is fine' })).status, 200);
    assert.equal((await t.db.selectFrom('jobs').select('id').where('quote_id', '=', quote.id).execute()).length, 1);
  });

  test('bad input: 400 Invalid request with details, nothing written', async () => {
    const other = await seedWorkspace(t.db);
    const foreignQuote = (await client(t.app, other.token).post('/api/v1/quotes', {})).body.data.id;
    const count = async () => (await t.db.selectFrom('jobs').select('id').where('workspace_id', '=', ws.workspace.id).execute()).length;
    const before = await count();
    for (const [body, path] of [
      [{ status: 'done' }, ['status']],
      [{ type: 'weekly' }, ['type']],
      [{ expected_end_date: '2025-02-29' }, ['expected_end_date']],
      [{ expenses: [{ name: 'x', amount: -1, date: '2025-01-01' }] }, ['expenses', 0, 'amount']],
      [{ expenses: [{ amount: 1, date: '2025-01-01' }] }, ['expenses', 0, 'name']],
      [{ expenses: [{ name: 'x', amount: 1, date: '1/1/25' }] }, ['expenses', 0, 'date']],
      [{ line_items: [{ name: 'a', unitPrice: 1, quantity: -2 }] }, ['line_items', 0, 'quantity']],
      [{ deposit_unit: 'EUR' }, ['deposit_unit']],
      [{ quote_id: foreignQuote }, ['quote_id']],
      [{ request_id: 999999 }, ['request_id']],
    ] as [unknown, (string | number)[]][]) {
      const res = await api.post('/api/v1/jobs', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body));
    }
    assert.equal(await count(), before);
  });

  test('status endpoint: every job status; body required; scope jobs:write', async () => {
    const { body } = await api.post('/api/v1/jobs', { name: 'S' });
    const res = await api.put(`/api/v1/jobs/${body.data.id}/status`, { status: 'in_progress' });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.data.id, res.body.data.status, res.body.data.number, res.body.data.name, res.body.data.workspace_id],
      [body.data.id, 'in_progress', body.data.number, 'S', ws.workspace.id],
    );
    assert.equal((await api.put(`/api/v1/jobs/${body.data.id}/status`, { status: 'accepted' })).status, 400);
    assert.equal((await api.put(`/api/v1/jobs/${body.data.id}/status`, {})).status, 400);
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['jobs:read']));
    assert.equal((await reader.put(`/api/v1/jobs/${body.data.id}/status`, { status: 'completed' })).status, 403);
    assert.deepEqual((await api.put('/api/v1/jobs/999999/status', { status: 'completed' })).body, { success: false, error: 'Job not found' });
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    let contact: number;
    let quoteId: number;
    before(async () => {
      const fresh = await seedWorkspace(t.db);
      mine = client(t.app, fresh.token);
      contact = (await mine.post('/api/v1/contacts', { first_name: 'L', last_name: 'M' })).body.data.id;
      quoteId = (await mine.post('/api/v1/quotes', {})).body.data.id;
      ids = [];
      for (const [name, status, c, q] of [
        ['Trim', 'draft', contact, null],
        ['Paint', 'scheduled', null, quoteId],
        ['Pave', 'completed', contact, null],
      ] as const) {
        ids.push((await mine.post('/api/v1/jobs', { name, status, contact_id: c, quote_id: q })).body.data.id);
      }
    });

    test('items carry exactly the SPEC fields; filters contact_id, quote_id, comma-separated status', async () => {
      const res = await mine.get('/api/v1/jobs');
      // E20: list items carry the schedule too.
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['contact_id', 'created_at', 'id', 'name', 'number', 'schedule', 'status', 'total', 'type']);
      const get = async (q: string) => (await mine.get(`/api/v1/jobs?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get(`contact_id=${contact}`), [ids[2], ids[0]]);
      assert.deepEqual(await get(`quote_id=${quoteId}`), [ids[1]]);
      assert.deepEqual(await get('status=draft,completed'), [ids[2], ids[0]]);
      assert.deepEqual(await get('search=paint'), [ids[1]]);
      assert.equal((await mine.get('/api/v1/jobs?status=draft,late')).status, 400);
    });
  });

  test('D12 delete is permanent; invoices keep going with job_id null', async () => {
    const { body } = await api.post('/api/v1/jobs', {});
    const invoice = (await api.post('/api/v1/invoices', { job_id: body.data.id })).body.data;
    assert.deepEqual((await api.delete(`/api/v1/jobs/${body.data.id}`)).body, { success: true, data: { deleted: true } });
    assert.deepEqual((await api.get(`/api/v1/jobs/${body.data.id}`)).body, { success: false, error: 'Job not found' });
    const after = (await api.get(`/api/v1/invoices/${invoice.id}`)).body.data;
    assert.equal(after.job_id, null);
    assert.equal(after.job, null);
  });
});
