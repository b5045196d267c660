import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addCustomField } from '../src/modules/custom-fields/custom-fields.service.ts';
import { buildTestApp, type Client, client, keyFor, outboxEvents, seedWorkspace, type TestApp } from './helpers.ts';

// EXTENSIONS E6: a job becomes an invoice, a request becomes a quote.
describe('conversions (E6)', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let contactId: number;
  let propertyId: number;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'L' })).body.data.id;
    propertyId = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { city: 'Town' } })).body.data.id;
  });
  after(() => t.close());

  test('POST /jobs/:id/create-invoice: a draft invoice with the job fields, new line item ids, D7 totals, a number and new_invoice', async () => {
    const tax = (await api.post('/api/v1/tax-rates', { name: 'VAT', rate: 10 })).body.data;
    const job = (
      await api.post('/api/v1/jobs', {
        name: 'Deck',
        contact_id: contactId,
        property_id: propertyId,
        status: 'completed',
        line_items: [{ name: 'Boards', unitPrice: 19.99, quantity: 3 }, { name: 'Labour', unitPrice: 100, quantity: 1 }],
        discount: 10,
        discount_unit: '%',
        tax_rate_id: tax.id,
      })
    ).body.data;
    const first = (await api.post('/api/v1/invoices', {})).body.data.number;
    const res = await api.post(`/api/v1/jobs/${job.id}/create-invoice`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const inv = res.body.data;
    assert.deepEqual(
      [inv.status, inv.contact_id, inv.property_id, inv.name, inv.job_id, inv.discount, inv.discount_unit, inv.tax_rate, inv.tax_rate_id],
      ['draft', contactId, propertyId, 'Deck', job.id, 10, '%', 10, tax.id],
    );
    assert.equal(inv.number, first + 1);
    assert.equal(inv.total, job.total, 'the same D7 total');
    assert.deepEqual(inv.line_items.map((l: { name: string }) => l.name), ['Boards', 'Labour']);
    for (const [i, l] of inv.line_items.entries()) assert.notEqual(l.id, job.line_items[i].id, 'new ids');
    assert.deepEqual(inv.job, { id: job.id, number: job.number, name: 'Deck', status: 'completed' });
    assert.deepEqual((await api.get(`/api/v1/invoices/${inv.id}`)).body.data, inv);
    const events = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.data.id === inv.id && e.event === 'new_invoice');
    assert.equal(events.length, 1);
    assert.deepEqual((await api.get(`/api/v1/jobs/${job.id}`)).body.data.status, 'completed', 'the job is left as it was');
  });

  test('issue 25: the invoice from a job is dated today in the workspace timezone, due by its terms (E2), and carries the job quote_id', async () => {
    // UTC+14: its day differs from UTC's for ten hours of every day.
    const zone = 'Pacific/Kiritimati';
    await t.db.updateTable('workspaces').set({ timezone: zone }).where('id', '=', ws.workspace.id).execute();
    const quote = (await api.post('/api/v1/quotes', { contact_id: contactId, line_items: [{ name: 'Boiler', unitPrice: 1500 }] })).body.data;
    const job = (await api.post('/api/v1/jobs', { name: 'Boiler', contact_id: contactId, quote_id: quote.id, line_items: [{ name: 'Boiler', unitPrice: 1500 }] })).body.data;
    const inv = (await api.post(`/api/v1/jobs/${job.id}/create-invoice`)).body.data;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    assert.deepEqual([inv.date, inv.due_date, inv.quote_id, inv.job_id], [today, today, quote.id, job.id]);
    assert.deepEqual((await api.get(`/api/v1/invoices/${inv.id}`)).body.data.quote_id, quote.id);
    await t.db.updateTable('workspaces').set({ timezone: 'UTC' }).where('id', '=', ws.workspace.id).execute();
  });

  test('POST /requests/:id/create-quote: a draft quote with the request fields; a new request becomes responded', async () => {
    const req = (await api.post('/api/v1/requests', { name: 'Fence', contact_id: contactId, property_id: propertyId })).body.data;
    const res = await api.post(`/api/v1/requests/${req.id}/create-quote`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const q = res.body.data;
    assert.deepEqual([q.status, q.contact_id, q.property_id, q.name, q.request_id], ['draft', contactId, propertyId, 'Fence', req.id]);
    assert.equal(typeof q.number, 'number');
    assert.deepEqual(q.request, { id: req.id, number: req.number, name: 'Fence', status: 'new' }, 'as read before the move');
    assert.equal((await api.get(`/api/v1/requests/${req.id}`)).body.data.status, 'responded');
    const events = (await outboxEvents(t.db, ws.workspace.id)).map((e) => [e.event, e.data.id]);
    assert.ok(events.some(([e, id]) => e === 'new_quote' && id === q.id));
    assert.ok(events.some(([e, id]) => e === 'request_updated' && id === req.id));
    // A request in another status keeps it.
    await api.put(`/api/v1/requests/${req.id}/status`, { status: 'archived' });
    assert.equal((await api.post(`/api/v1/requests/${req.id}/create-quote`)).status, 201);
    assert.equal((await api.get(`/api/v1/requests/${req.id}`)).body.data.status, 'archived');
  });

  test('D23: required custom fields of the new document apply (400, nothing created)', async () => {
    await addCustomField(t.db, ws.workspace.id, { module_type: 'invoice', key: 'po', label: 'PO', type: 'text', options: null, required: true });
    const job = (await api.post('/api/v1/jobs', { name: 'J' })).body.data;
    const before = (await api.get('/api/v1/invoices?per_page=100')).body.data.length;
    const res = await api.post(`/api/v1/jobs/${job.id}/create-invoice`);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body.details[0].path, ['custom_fields', 'po']);
    assert.equal((await api.get('/api/v1/invoices?per_page=100')).body.data.length, before);
  });

  test('missing ids are 404 with the parent name; scopes invoices:write and quotes:write', async () => {
    assert.deepEqual((await api.post('/api/v1/jobs/2000000000/create-invoice')).body, { success: false, error: 'Job not found' });
    assert.deepEqual((await api.post('/api/v1/requests/2000000000/create-quote')).body, { success: false, error: 'Request not found' });
    assert.deepEqual((await api.post('/api/v1/jobs/abc/create-invoice')).body, { success: false, error: 'Job not found' });
    const job = (await api.post('/api/v1/jobs', {})).body.data.id;
    const req = (await api.post('/api/v1/requests', {})).body.data.id;
    const quotesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:write', 'jobs:read', 'requests:read']));
    assert.equal((await quotesOnly.post(`/api/v1/jobs/${job}/create-invoice`)).status, 403);
    assert.equal((await quotesOnly.post(`/api/v1/requests/${req}/create-quote`)).status, 201);
    const invoicesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:write']));
    assert.equal((await invoicesOnly.post(`/api/v1/requests/${req}/create-quote`)).status, 403);
  });
});
