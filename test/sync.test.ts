import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { runDocumentsDay } from '../src/modules/lifecycle/daily-run.ts';
import { Worker } from '../src/outbox/worker.ts';
import { backend, buildTestApp, client, keyFor, outboxEvents, seedWorkspace, type TestApp } from './helpers.ts';
import { multipartBody, png } from './upload-fixtures.ts';
import { type Receiver, startReceiver, waitFor } from './webhook-receiver.ts';

// EXTENSIONS E12 (sync filters), E13 (deletions feed), E14 (more webhook events).

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Ws = Awaited<ReturnType<typeof seedWorkspace>>;
const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id).sort((a, b) => a - b);

/** Every list endpoint built on listQuery()/paginate(), with what it needs to answer. */
async function listUrls(ws: Ws): Promise<string[]> {
  const api = client(t.app, ws.token);
  const contact = (await api.post('/api/v1/contacts', { first_name: 'L', last_name: 'Ist' })).body.data.id;
  return [
    '/api/v1/contacts',
    '/api/v1/properties',
    `/api/v1/contacts/${contact}/properties`,
    '/api/v1/requests',
    '/api/v1/quotes',
    '/api/v1/jobs',
    '/api/v1/invoices',
    '/api/v1/events',
    '/api/v1/time-entries',
    '/api/v1/timesheets',
    '/api/v1/services',
    '/api/v1/tax-rates',
    '/api/v1/quote-templates',
    '/api/v1/users',
    '/api/v1/custom-fields',
    `/api/v1/uploads?module_type=contact&module_id=${contact}`,
    `/api/v1/comments?module_type=contact&module_id=${contact}`,
  ];
}
const withQuery = (url: string, q: string) => `${url}${url.includes('?') ? '&' : '?'}${q}`;

describe('E12 sync filters', () => {
  test('every list accepts the four filters and sort_by=updated_at; a bad instant is its usual 400 naming the parameter', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    for (const url of await listUrls(ws)) {
      const ok = await api.get(withQuery(url, 'updated_since=2020-01-01T00:00:00Z&updated_before=2999-01-01T00:00:00%2B02:00&created_since=2020-01-01T00:00:00.000Z&created_before=2999-01-01T00:00:00Z&sort_by=updated_at&sort_direction=asc'));
      assert.equal(ok.status, 200, `${url}: ${JSON.stringify(ok.body)}`);
      const error = url.includes('/uploads') ? 'Validation error' : 'Invalid request'; // D4
      for (const [param, bad] of [
        ['updated_since', '2026-01-01T00:00:00'], // no offset
        ['updated_before', '2026-01-01'], // a date, not an instant
        ['created_since', 'yesterday'],
        ['created_before', '2026-02-30T00:00:00Z'], // no such day
        ['updated_since', '2026-01-01T24:00:00Z'],
      ]) {
        const res = await api.get(withQuery(url, `${param}=${encodeURIComponent(bad)}`));
        assert.equal(res.status, 400, `${url} ${param}=${bad}`);
        assert.equal(res.body.error, error, url);
        assert.ok(
          res.body.details.some((d: { path: string[] }) => d.path[0] === param),
          `${url}: ${JSON.stringify(res.body.details)}`,
        );
      }
    }
  });

  test('since is inclusive, before exclusive, offsets compare as instants, and a future updated_since matches nothing', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const a = (await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'One' })).body.data;
    await sleep(15);
    const b = (await api.post('/api/v1/contacts', { first_name: 'B', last_name: 'Two' })).body.data;
    await sleep(15);
    const updated = (await api.put(`/api/v1/contacts/${a.id}`, { company: 'Changed' })).body.data;
    assert.ok(updated.updated_at > b.created_at);

    assert.deepEqual(ids(await api.get(`/api/v1/contacts?updated_since=${b.updated_at}`)), [a.id, b.id].sort((x, y) => x - y));
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?updated_since=${updated.updated_at}`)), [a.id], 'since is inclusive');
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?updated_before=${updated.updated_at}`)), [b.id], 'before is exclusive');
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?created_since=${b.created_at}`)), [b.id]);
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?created_before=${b.created_at}`)), [a.id]);

    // The same instant written with +02:00 (a naive text comparison would get it wrong).
    const shifted = (iso: string) => {
      const d = new Date(Date.parse(iso) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      return encodeURIComponent(d);
    };
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?updated_since=${shifted(updated.updated_at)}`)), [a.id]);
    assert.deepEqual(ids(await api.get(`/api/v1/contacts?created_before=${shifted(b.created_at)}`)), [a.id]);

    // F80: in the future is valid and matches nothing; the pagination says so too.
    const future = await api.get('/api/v1/contacts?updated_since=2999-01-01T00:00:00Z');
    assert.equal(future.status, 200);
    assert.deepEqual(future.body.data, []);
    assert.equal(future.body.pagination.total_pages, 0);

    // Sorted by updated_at: the updated one last in ascending order.
    const sorted = await api.get('/api/v1/contacts?sort_by=updated_at&sort_direction=asc');
    assert.deepEqual(sorted.body.data.map((c: { id: number }) => c.id), [b.id, a.id]);
  });

  test('updated_at moves on status routes, payments, conversions, the daily run, and when a delete clears a reference', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Up', last_name: 'Dated', email: 'up@example.test' })).body.data.id;
    const line_items = [{ name: 'Work', unitPrice: 100, quantity: 1 }];
    const quote = (await api.post('/api/v1/quotes', { contact_id: contact, line_items })).body.data;
    const job = (await api.post('/api/v1/jobs', { contact_id: contact, line_items })).body.data;
    const invoice = (await api.post('/api/v1/invoices', { contact_id: contact, job_id: job.id, status: 'sent', line_items })).body.data;
    const request = (await api.post('/api/v1/requests', { contact_id: contact, name: 'Fix it' })).body.data;
    const late = (await api.post('/api/v1/invoices', { contact_id: contact, status: 'sent', due_date: '2020-01-01', line_items })).body.data;
    await sleep(15);

    const quoteAfter = (await api.put(`/api/v1/quotes/${quote.id}/status`, { status: 'awaiting_response' })).body.data;
    assert.ok(quoteAfter.updated_at > quote.updated_at, 'quote status');
    const jobAfter = (await api.put(`/api/v1/jobs/${job.id}/status`, { status: 'in_progress' })).body.data;
    assert.ok(jobAfter.updated_at > job.updated_at, 'job status');
    const reqAfter = (await api.put(`/api/v1/requests/${request.id}/status`, { status: 'responded' })).body.data;
    assert.ok(reqAfter.updated_at > request.updated_at, 'request status');
    assert.equal((await api.post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 10 })).status, 201);
    const invAfter = (await api.get(`/api/v1/invoices/${invoice.id}`)).body.data;
    assert.ok(invAfter.updated_at > invoice.updated_at, 'a payment moves its invoice');

    // A conversion: the request that becomes a quote moves (new -> responded).
    const fresh = (await api.post('/api/v1/requests', { contact_id: contact, name: 'Convert me' })).body.data;
    await sleep(15);
    assert.equal((await api.post(`/api/v1/requests/${fresh.id}/create-quote`)).status, 201);
    assert.ok((await api.get(`/api/v1/requests/${fresh.id}`)).body.data.updated_at > fresh.updated_at, 'conversion');

    // The daily run's set-based move.
    await t.db.transaction().execute((trx) => runDocumentsDay(trx, ws.workspace.id, '2030-06-15', t.config));
    const lateAfter = (await api.get(`/api/v1/invoices/${late.id}`)).body.data;
    assert.equal(lateAfter.status, 'overdue');
    assert.ok(lateAfter.updated_at > late.updated_at, 'daily run');

    // Deleting the job clears the invoice's job_id: the invoice moves too (F82).
    const since = new Date().toISOString();
    await sleep(5);
    assert.equal((await api.delete(`/api/v1/jobs/${job.id}`)).status, 200);
    const changed = await api.get(`/api/v1/invoices?updated_since=${since}`);
    assert.deepEqual(ids(changed), [invoice.id]);
    assert.equal((await api.get(`/api/v1/invoices/${invoice.id}`)).body.data.job, null);
  });

  test('the filter is an index range on (workspace_id, updated_at)', async () => {
    const plan =
      backend === 'postgres'
        ? // Without statistics on a small table the planner may prefer a scan: ask it not to.
          await t.db.connection().execute(async (conn) => {
            await sql`set enable_seqscan = off`.execute(conn);
            const r = await sql<{ 'QUERY PLAN': string }>`explain select id from contacts where workspace_id = 1 and updated_at >= '2026-01-01T00:00:00.000Z' order by updated_at, id limit 25`.execute(conn);
            await sql`reset enable_seqscan`.execute(conn);
            return r.rows.map((x) => x['QUERY PLAN']).join('\n');
          })
        : (await sql<{ detail: string }>`explain query plan select id from contacts where workspace_id = 1 and updated_at >= '2026-01-01T00:00:00.000Z' order by updated_at, id limit 25`.execute(t.db)).rows
            .map((x) => x.detail)
            .join('\n');
    assert.match(plan, /contacts_workspace_updated/, plan);
  });
});

describe('E13 deletions feed', () => {
  test('deletes are listed oldest first, filtered by since and resource, with the list pagination', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Gone', last_name: 'Soon' })).body.data.id;
    const service = (await api.post('/api/v1/services', { name: 'Mow', price: 10 })).body.data.id;
    const taxRate = (await api.post('/api/v1/tax-rates', { name: 'VAT', rate: 20 })).body.data.id;
    const event = (await api.post('/api/v1/events', { name: 'Visit', start_date: '2030-01-01', end_date: '2030-01-01' })).body.data.id;
    assert.equal((await api.delete(`/api/v1/contacts/${contact}`)).status, 200);
    await sleep(10);
    const mid = new Date().toISOString();
    for (const path of [`services/${service}`, `tax-rates/${taxRate}`, `events/${event}`]) assert.equal((await api.delete(`/api/v1/${path}`)).status, 200);

    const all = await api.get('/api/v1/deletions');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.data.map((d: { resource: string; id: number }) => [d.resource, d.id]),
      [['contacts', contact], ['services', service], ['tax_rates', taxRate], ['events', event]],
    );
    assert.ok(all.body.data.every((d: { deleted_at: string }) => !Number.isNaN(Date.parse(d.deleted_at))));
    assert.deepEqual(all.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    const paged = await api.get('/api/v1/deletions?per_page=3&page=2');
    assert.deepEqual([paged.body.data.map((d: { id: number }) => d.id), paged.body.pagination.total_pages], [[event], 2]);
    const since = await api.get(`/api/v1/deletions?since=${mid}`);
    assert.deepEqual(since.body.data.map((d: { resource: string }) => d.resource), ['services', 'tax_rates', 'events']);
    const some = await api.get('/api/v1/deletions?resource=events,contacts');
    assert.deepEqual(some.body.data.map((d: { resource: string }) => d.resource), ['contacts', 'events']);

    const unknown = await api.get('/api/v1/deletions?resource=contacts,widgets');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error, 'Invalid request');
    assert.deepEqual(unknown.body.details[0].path, ['resource']);
    assert.match(unknown.body.details[0].message, /widgets/);
    const bad = await api.get('/api/v1/deletions?since=2026-01-01');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details[0].path, ['since']);
    assert.deepEqual((await api.get('/api/v1/deletions?since=2999-01-01T00:00:00Z')).body.data, []);

    // F121: the feed sorts only by deletion time, and refuses other sort values like every list.
    const newest = await api.get('/api/v1/deletions?sort_by=deleted_at&sort_direction=desc');
    assert.deepEqual(newest.body.data.map((d: { id: number }) => d.id), [event, taxRate, service, contact]);
    assert.deepEqual((await api.get('/api/v1/deletions?sort_direction=asc')).body.data, all.body.data);
    for (const [query, field] of [['sort_by=password', 'sort_by'], ['sort_direction=sideways', 'sort_direction'], ['sort_by=id', 'sort_by']]) {
      const refused = await api.get(`/api/v1/deletions?${query}`);
      assert.equal(refused.status, 400, query);
      assert.equal(refused.body.error, 'Invalid request');
      assert.deepEqual(refused.body.details[0].path, [field], query);
      if (query === 'sort_by=id') continue; // contacts do sort by id
      const list = await api.get(`/api/v1/contacts?${query}`);
      assert.deepEqual([list.status, list.body.error, list.body.details[0].path], [400, 'Invalid request', [field]], `contacts ${query}`);
    }
  });

  test('a refused delete leaves no entry; another workspace never sees the entries', async () => {
    const ws = await seedWorkspace(t.db);
    const other = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Has', last_name: 'Quote' })).body.data.id;
    await api.post('/api/v1/quotes', { contact_id: contact });
    const refused = await api.delete(`/api/v1/contacts/${contact}`);
    assert.equal(refused.status, 409);
    const invoice = (await api.post('/api/v1/invoices', { status: 'sent', line_items: [{ name: 'W', unitPrice: 10, quantity: 1 }] })).body.data.id;
    await api.post(`/api/v1/invoices/${invoice}/payments`, { amount: 5 });
    assert.equal((await api.delete(`/api/v1/invoices/${invoice}`)).status, 409);
    assert.deepEqual((await api.get('/api/v1/deletions')).body.data, []);
    const outbox = (await outboxEvents(t.db, ws.workspace.id)).map((e) => e.event);
    assert.ok(!outbox.includes('contact_deleted') && !outbox.includes('invoice_deleted'), 'no event for a refused delete');

    const job = (await api.post('/api/v1/jobs', { name: 'J' })).body.data.id;
    assert.equal((await api.delete(`/api/v1/jobs/${job}`)).status, 200);
    assert.equal((await api.get('/api/v1/deletions')).body.data.length, 1);
    // The other workspace's id is simply not found, and its feed stays empty.
    assert.equal((await client(t.app, other.token).delete(`/api/v1/jobs/${job}`)).status, 404);
    assert.deepEqual((await client(t.app, other.token).get('/api/v1/deletions')).body.data, []);
  });

  test('a key sees only the resources it may read', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Scope', last_name: 'Test' })).body.data.id;
    const entry = (await api.post('/api/v1/time-entries', { start_date: '2030-01-01', end_date: '2030-01-01', start_time: '09:00', end_time: '10:00' })).body.data;
    assert.ok(entry?.id, 'time entry created');
    const job = (await api.post('/api/v1/jobs', { name: 'J' })).body.data.id;
    for (const path of [`contacts/${contact}`, `time-entries/${entry.id}`, `jobs/${job}`]) assert.equal((await api.delete(`/api/v1/${path}`)).status, 200);

    const seen = async (scopes: string[]) => {
      const res = await client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', scopes)).get('/api/v1/deletions');
      return res.status === 200 ? res.body.data.map((d: { resource: string }) => d.resource) : res.status;
    };
    assert.deepEqual(await seen(['contacts:read']), ['contacts']);
    assert.deepEqual(await seen(['timesheets:read', 'jobs:read']), ['time_entries', 'jobs']);
    assert.deepEqual(await seen(['read']), ['contacts', 'time_entries', 'jobs']);
    assert.deepEqual(await seen(['contacts:write']), 403);
    // `resource` cannot widen what the scopes show.
    const narrow = await client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read'])).get('/api/v1/deletions?resource=jobs');
    assert.deepEqual(narrow.body.data, []);
  });
});

describe('E13 deletions feed: uploads', () => {
  test('an upload deleted on its own, and one deleted with its contact, are both listed', async () => {
    const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-files-'));
    const app = await buildTestApp({ STORAGE_DIR: storageDir });
    try {
      const ws = await seedWorkspace(app.db);
      const api = client(app.app, ws.token);
      const upload = async (contactId: number) => {
        const { payload, contentType } = multipartBody([
          { name: 'module_type', value: 'contact' },
          { name: 'module_id', value: String(contactId) },
          { name: 'file', filename: 'photo.png', type: 'image/png', data: png() },
        ]);
        const res = await app.app.inject({ method: 'POST', url: '/api/v1/uploads', payload, headers: { authorization: `Bearer ${ws.token}`, 'content-type': contentType } });
        assert.equal(res.statusCode, 201, res.body);
        return res.json().data.link_id as number;
      };
      const kept = (await api.post('/api/v1/contacts', { first_name: 'Keeps', last_name: 'Contact' })).body.data.id;
      const gone = (await api.post('/api/v1/contacts', { first_name: 'Goes', last_name: 'Away' })).body.data.id;
      const alone = await upload(kept);
      const withParent = await upload(gone);
      assert.equal((await api.delete(`/api/v1/uploads/${alone}`)).status, 200);
      assert.equal((await api.delete(`/api/v1/contacts/${gone}`)).status, 200);
      const feed = (await api.get('/api/v1/deletions')).body.data.map((d: { resource: string; id: number }) => [d.resource, d.id]);
      assert.deepEqual(
        feed.sort(),
        [['contacts', gone], ['uploads', alone], ['uploads', withParent]].sort(),
        'F83: a link deleted with its parent is listed too',
      );
      const reader = client(app.app, await keyFor(app.db, ws.workspace.id, 'rest', ['contacts:read']));
      assert.deepEqual(
        (await reader.get('/api/v1/deletions?resource=uploads')).body.data.map((d: { id: number }) => d.id).sort(),
        [alone, withParent].sort(),
        "an upload of a contact is read with the contact's scope",
      );
    } finally {
      await app.close();
      fs.rmSync(storageDir, { recursive: true, force: true });
    }
  });
});

describe('E14 more webhook events', () => {
  let rx: Receiver;
  let worker: Worker | null = null;
  before(async () => {
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });
  after(() => rx.close());

  test('the new events are subscribable and delivered end to end, each once per write', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const events = [
      'contact_updated', 'contact_deleted', 'request_deleted', 'quote_updated', 'quote_deleted', 'quote_accepted', 'job_updated', 'job_deleted',
      'invoice_updated', 'invoice_deleted', 'invoice_paid', 'new_event', 'event_updated', 'event_deleted', 'payment_received',
    ];
    for (const trigger_event of events) {
      const res = await api.post('/api/webhooks/subscribe', { trigger_event, webhook_url: rx.url(`/ok?e=${trigger_event}`) });
      assert.equal(res.status, 201, `${trigger_event}: ${JSON.stringify(res.body)}`);
    }
    const line_items = [{ name: 'Work', unitPrice: 100, quantity: 1 }];
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Web', last_name: 'Hook' })).body.data.id;
    await api.put(`/api/v1/contacts/${contact}`, { company: 'Hooks Ltd' });
    const quote = (await api.post('/api/v1/quotes', { line_items })).body.data.id;
    await api.put(`/api/v1/quotes/${quote}/status`, { status: 'accepted' }); // quote_accepted + quote_updated, each once
    const spare = (await api.post('/api/v1/quotes', { line_items })).body.data.id;
    const job = (await api.post('/api/v1/jobs', { line_items })).body.data.id;
    await api.put(`/api/v1/jobs/${job}/status`, { status: 'in_progress' });
    const invoice = (await api.post('/api/v1/invoices', { status: 'sent', line_items })).body.data.id;
    const payment = (await api.post(`/api/v1/invoices/${invoice}/payments`, { amount: 100 })).body.data; // payment_received, invoice_updated, invoice_paid
    const draft = (await api.post('/api/v1/invoices', { line_items })).body.data.id;
    const visit = (await api.post('/api/v1/events', { name: 'Visit', start_date: '2030-01-01', end_date: '2030-01-01' })).body.data.id;
    await api.put(`/api/v1/events/${visit}`, { name: 'Visit 2' });
    await api.put(`/api/v1/events/${visit}/status`, { status: 'completed' });
    const request = (await api.post('/api/v1/requests', { name: 'R' })).body.data.id;
    for (const path of [`quotes/${spare}`, `jobs/${job}`, `invoices/${draft}`, `events/${visit}`, `requests/${request}`, `contacts/${contact}`]) {
      assert.equal((await api.delete(`/api/v1/${path}`)).status, 200, path);
    }
    const expected: Record<string, number> = {
      contact_updated: 1, contact_deleted: 1, request_deleted: 1, quote_updated: 1, quote_deleted: 1, quote_accepted: 1, job_updated: 1, job_deleted: 1,
      invoice_updated: 1, invoice_deleted: 1, invoice_paid: 1, new_event: 1, event_updated: 2, event_deleted: 1, payment_received: 1,
    };
    const total = Object.values(expected).reduce((a, b) => a + b, 0);
    const mine = () => rx.received.filter((r) => r.body?.workspace_id === ws.workspace.id);
    worker = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20 });
    worker.start();
    await waitFor('every delivery', () => mine().length >= total, 20_000).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(mine().map((r) => r.body.event))}`);
    });
    await sleep(200); // nothing more arrives
    const got: Record<string, number> = {};
    for (const r of mine()) {
      assert.equal(r.headers['x-service-event'], r.body.event);
      got[r.body.event] = (got[r.body.event] ?? 0) + 1;
    }
    assert.deepEqual(got, expected);
    const one = (event: string) => mine().find((r) => r.body.event === event)!.body;
    for (const [event, id] of [['contact_deleted', contact], ['quote_deleted', spare], ['job_deleted', job], ['invoice_deleted', draft], ['event_deleted', visit], ['request_deleted', request]] as const) {
      assert.deepEqual(one(event).data, { id }, event);
    }
    assert.deepEqual(one('payment_received').data, payment);
    assert.match(one('payment_received').meta.link, new RegExp(`/api/v1/invoices/${invoice}/payments$`));
    assert.equal(one('contact_updated').data.company, 'Hooks Ltd');
    assert.equal(one('quote_updated').data.status, 'accepted');
    assert.equal(one('job_updated').data.status, 'in_progress');
    assert.equal(one('invoice_updated').data.status, 'paid');
    assert.equal(one('new_event').data.name, 'Visit');
  });

  test("the daily run's moves fire quote_updated and invoice_updated, once per record, committed with the move", async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const line_items = [{ name: 'W', unitPrice: 50, quantity: 1 }];
    const late = (await api.post('/api/v1/invoices', { status: 'sent', due_date: '2030-06-01', line_items })).body.data.id;
    const expiring = (await api.post('/api/v1/quotes', { status: 'awaiting_response', expire_on: '2030-06-01' })).body.data.id;
    const before = (await outboxEvents(t.db, ws.workspace.id)).length;
    await t.db.transaction().execute((trx) => runDocumentsDay(trx, ws.workspace.id, '2030-06-15', t.config));
    const after = (await outboxEvents(t.db, ws.workspace.id)).slice(before);
    assert.deepEqual(
      after.map((e) => [e.event, e.data.id, e.data.status]),
      [['invoice_updated', late, 'overdue'], ['quote_updated', expiring, 'expired']],
    );
  });
});
