import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';

// Issue 25: typos were dropped without a word (E19), and dates, times and list
// filters answered with regular expressions.

describe('E19: ignored fields are named; unknown keys in a line item are refused', () => {
  let t: TestApp;
  let api: Client;
  before(async () => {
    t = await buildTestApp();
    api = client(t.app, (await seedWorkspace(t.db)).token);
  });
  after(() => t.close());

  test('a contact with `emial` is saved, and the answer names `emial` in Fieldwork-Ignored-Fields', async () => {
    const res = await api.post('/api/v1/contacts', { first_name: 'Ann', last_name: 'Typo', emial: 'ann@example.test', nested_thing: { a: 1 } });
    assert.equal(res.status, 201);
    assert.equal(res.headers['fieldwork-ignored-fields'], 'emial, nested_thing');
    const clean = await api.put(`/api/v1/contacts/${res.body.data.id}`, { email: 'ann@example.test' });
    assert.equal(clean.status, 200);
    assert.equal(clean.headers['fieldwork-ignored-fields'], undefined);
  });

  test('keys a header cannot carry are percent-encoded, and a body with hundreds of unknown keys names 50 and counts the rest', async () => {
    const odd = await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', 'ém,ail\n名': 1 });
    assert.equal(odd.status, 201);
    assert.equal(odd.headers['fieldwork-ignored-fields'], '%C3%A9m%2Cail%0A%E5%90%8D');
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`extra_${i}`, i]));
    const res = await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', ...many });
    assert.equal(res.status, 201);
    const listed = String(res.headers['fieldwork-ignored-fields']).split(', ');
    assert.equal(listed.length, 51);
    assert.equal(listed[50], '+250 more');
  });

  test('`qty` inside a line item: 400 naming line_items.0.qty, nothing written, on quotes, jobs, invoices and templates', async () => {
    const bad = [{ name: 'Valve', unitPrice: 40, qty: 3 }];
    for (const [url, extra] of [
      ['/api/v1/quotes', {}],
      ['/api/v1/jobs', { title: 'Fix' }],
      ['/api/v1/invoices', {}],
      ['/api/v1/quote-templates', { template_name: 'T' }],
    ] as const) {
      const before = (await api.get(url)).body.pagination.total_pages;
      const res = await api.post(url, { ...extra, line_items: [{ name: 'Fine', unitPrice: 1 }, ...bad] });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { success: false, error: 'Invalid request', details: [{ path: ['line_items', 1, 'qty'], message: 'is not a line item field' }] });
      assert.equal((await api.get(url)).body.pagination.total_pages, before, url);
    }
  });

  test('the OpenAPI document names the header on the 2xx answers of writes with a body', async () => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    const created = doc.paths['/api/v1/contacts'].post.responses['201'];
    assert.deepEqual(created.headers['Fieldwork-Ignored-Fields'], { $ref: '#/components/headers/IgnoredFields' });
    assert.equal(doc.components.headers.IgnoredFields.schema.type, 'string');
    assert.equal(doc.paths['/api/v1/contacts'].get.responses['200'].headers['Fieldwork-Ignored-Fields'], undefined); // a read has no body to ignore
  });

  test('a line item sent back as a GET returned it (id, _type) is accepted and named nowhere; a top-level read-only field is named', async () => {
    const created = await api.post('/api/v1/quotes', { line_items: [{ name: 'Valve', unitPrice: 40, quantity: 3 }] });
    assert.equal(created.status, 201);
    const read = (await api.get(`/api/v1/quotes/${created.body.data.id}`)).body.data;
    const res = await api.put(`/api/v1/quotes/${read.id}`, { line_items: read.line_items, total: read.total, created_at: read.created_at });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.line_items[0].id, read.line_items[0].id);
    assert.equal(res.body.data.line_items[0].quantity, 3);
    assert.equal(res.headers['fieldwork-ignored-fields'], 'created_at');
  });
});

describe('dates, times and list filters say what they accept', () => {
  let t: TestApp;
  let api: Client;
  before(async () => {
    t = await buildTestApp();
    api = client(t.app, (await seedWorkspace(t.db)).token);
  });
  after(() => t.close());

  test('a date, a time and a status filter', async () => {
    const date = await api.post('/api/v1/invoices', { date: '2026-13-01' });
    assert.equal(date.status, 400);
    assert.deepEqual(date.body.details, [{ path: ['date'], message: 'must be a date (YYYY-MM-DD)' }]);

    const time = await api.post('/api/v1/time-entries', { start_date: '2026-01-05', end_date: '2026-01-05', start_time: '9am' });
    assert.equal(time.status, 400);
    assert.deepEqual(time.body.details, [{ path: ['start_time'], message: 'must be a time (HH:MM)' }]);

    const filter = await api.get('/api/v1/invoices?status=payed');
    assert.equal(filter.status, 400);
    assert.equal(filter.body.details.length, 1);
    assert.deepEqual(filter.body.details[0].path, ['status']);
    assert.match(filter.body.details[0].message, /^must be one of: draft, .*paid.*\(several separated by commas\)$/);
    assert.doesNotMatch(JSON.stringify([date.body, time.body, filter.body]), /pattern|\^/);
  });
});
