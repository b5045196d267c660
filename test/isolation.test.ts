import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, ownerSessionToken, seedWorkspace, type TestApp } from './helpers.ts';
import { insertUploadLink } from './upload-fixtures.ts';
import { insertImport } from '../src/modules/imports/imports.repo.ts';
import { newImport } from '../src/modules/imports/imports.service.ts';

// Tenant isolation, for every route: another workspace's id behaves exactly
// like an id that does not exist (same status, same body), and the owner's
// record is left as it was. A route with path ids and no fixture here fails
// the suite, so every new resource has to join it.

/** Makes records in workspace A; returns the path parameters naming them. */
type Fixture = { make: (a: Client, t: TestApp) => Promise<Record<string, number | string>>; body?: Record<string, unknown> };

const contact = async (a: Client) => (await a.post('/api/v1/contacts', { first_name: 'Iso', last_name: 'Lated' })).body.data.id as number;

const event = async (a: Client) => (await a.post('/api/v1/events', { start_date: '2024-05-06', end_date: '2024-05-06' })).body.data.id as number;
const timeEntry = async (a: Client) =>
  (await a.post('/api/v1/time-entries', { start_date: '2024-05-06', end_date: '2024-05-06', total_time: 1 })).body.data as { id: number; timesheet_id: number };

/** An invoice open for payment (E3), with a balance. */
const openInvoice = async (a: Client) =>
  (await a.post('/api/v1/invoices', { status: 'sent', line_items: [{ name: 'Work', unitPrice: 100, quantity: 1 }] })).body.data.id as number;

/** A webhook delivery of A's (issue 22's log): a subscription, an event and its delivery row, as the worker makes them. */
const delivery = async (a: Client, t: TestApp) => {
  const sub = (await a.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: 'http://127.0.0.1:9/hook' })).body.subscription;
  const { workspace_id } = await t.db.selectFrom('webhook_subscriptions').select('workspace_id').where('id', '=', sub.id).executeTakeFirstOrThrow();
  const at = new Date().toISOString();
  const outbox = await t.db.insertInto('outbox').values({ workspace_id, event: 'new_contact', payload: '{}', created_at: at, processed_at: at }).returning('id').executeTakeFirstOrThrow();
  const row = await t.db
    .insertInto('webhook_deliveries')
    .values({ workspace_id, subscription_id: sub.id, outbox_id: outbox.id, event: 'new_contact', webhook_id: crypto.randomUUID(), status: 'failed', attempts: 5, max_attempts: 5, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
};

const fixtures: Record<string, Fixture> = {
  // Issue 22: the settings API.
  '/api/v1/keys/:id': { make: async (a) => ({ id: (await a.post('/api/v1/keys', { type: 'general' })).body.data.id }) },
  '/api/v1/webhook-deliveries/:id': { make: async (a, t) => ({ id: await delivery(a, t) }) },
  '/api/v1/webhook-deliveries/:id/redeliver': { make: async (a, t) => ({ id: await delivery(a, t) }) },
  '/api/v1/team/invites/:id': { make: async (a) => ({ id: (await a.post('/api/v1/team/invites', { email: `iso${Math.random()}@example.test`, role: 'member' })).body.data.id }) },
  '/api/v1/team/invites/:id/resend': { make: async (a) => ({ id: (await a.post('/api/v1/team/invites', { email: `iso${Math.random()}@example.test`, role: 'member' })).body.data.id }) },
  '/api/v1/team/invites/:id/setup-link': { make: async (a) => ({ id: (await a.post('/api/v1/team/invites', { email: `iso${Math.random()}@example.test`, role: 'member' })).body.data.id }) },
  '/api/v1/users/:user_id': {
    make: async (a) => ({ user_id: (await a.post('/api/v1/team/invites', { email: `iso${Math.random()}@example.test`, role: 'member' })).body.data.user_id }),
    body: { job_title: 'Changed' },
  },
  '/api/v1/custom-fields/:id': {
    make: async (a) => ({ id: (await a.post('/api/v1/custom-fields', { module_type: 'job', key: `k${Date.now()}${Math.floor(Math.random() * 1e6)}`, label: 'Iso', type: 'text' })).body.data.id }),
    body: { label: 'Changed' },
  },
  '/api/v1/contacts/:id': { make: async (a) => ({ id: await contact(a) }), body: { company: 'Changed' } },
  '/api/v1/contacts/:id/properties': { make: async (a) => ({ id: await contact(a) }), body: { address: { city: 'X' } } },
  // E7: another workspace's contact gets no link, and keeps its links.
  '/api/v1/contacts/:id/hub-link': { make: async (a) => ({ id: await contact(a) }) },
  '/api/v1/contacts/:id/hub-links': { make: async (a) => ({ id: await contact(a) }) },
  '/api/v1/contacts/:id/properties/:propertyId': {
    make: async (a) => {
      const id = await contact(a);
      const p = await a.post(`/api/v1/contacts/${id}/properties`, { address: { city: 'Home' } });
      return { id, propertyId: p.body.data.id };
    },
    body: { role: 'tenant' },
  },
  '/api/v1/uploads/:id': {
    make: async (a, t) => {
      const contactId = await contact(a);
      const { workspace_id } = (await a.get(`/api/v1/contacts/${contactId}`)).body.data;
      // Public: its url is stable, so the owner's views before and after compare equal.
      return { id: await insertUploadLink(t.db, workspace_id, 'contact', contactId, 'workspaces_pub') };
    },
    body: { name: 'Changed' },
  },
  '/api/v1/comments/:id': {
    make: async (a) => {
      const contactId = await contact(a);
      return { id: (await a.post('/api/v1/comments', { module_type: 'contact', module_id: contactId, comment: 'Iso' })).body.data.id };
    },
  },
  // Sales pipeline (issue 3).
  '/api/v1/requests/:id': { make: async (a) => ({ id: (await a.post('/api/v1/requests', { name: 'Iso' })).body.data.id }), body: { name: 'Changed' } },
  '/api/v1/requests/:id/status': { make: async (a) => ({ id: (await a.post('/api/v1/requests', {})).body.data.id }), body: { status: 'archived' } },
  '/api/v1/quotes/:id': { make: async (a) => ({ id: (await a.post('/api/v1/quotes', { name: 'Iso' })).body.data.id }), body: { name: 'Changed' } },
  '/api/v1/quotes/:id/status': { make: async (a) => ({ id: (await a.post('/api/v1/quotes', {})).body.data.id }), body: { status: 'accepted', comment: 'x' } },
  '/api/v1/jobs/:id': { make: async (a) => ({ id: (await a.post('/api/v1/jobs', { name: 'Iso' })).body.data.id }), body: { name: 'Changed' } },
  '/api/v1/jobs/:id/status': { make: async (a) => ({ id: (await a.post('/api/v1/jobs', {})).body.data.id }), body: { status: 'completed' } },
  '/api/v1/invoices/:id': { make: async (a) => ({ id: (await a.post('/api/v1/invoices', { name: 'Iso' })).body.data.id }), body: { name: 'Changed' } },
  '/api/v1/invoices/:id/payments': { make: async (a) => ({ id: await openInvoice(a) }), body: { amount: 1 } },
  '/api/v1/invoices/:id/payments/:paymentId': {
    make: async (a) => {
      const id = await openInvoice(a);
      return { id, paymentId: (await a.post(`/api/v1/invoices/${id}/payments`, { amount: 1 })).body.data.id };
    },
  },
  // E23: a quote awaiting its deposit takes deposit payments.
  '/api/v1/quotes/:id/payments': {
    make: async (a) => {
      const id = (await a.post('/api/v1/quotes', { line_items: [{ name: 'Patio', unitPrice: 100 }], deposit: 50, deposit_unit: '%' })).body.data.id;
      await a.put(`/api/v1/quotes/${id}/status`, { status: 'accepted' });
      return { id };
    },
    body: { amount: 1 },
  },
  // E9: the PDFs (the same bytes for the same document, so the owner's views compare equal).
  '/api/v1/quotes/:id/pdf': { make: async (a) => ({ id: (await a.post('/api/v1/quotes', { name: 'Iso' })).body.data.id }) },
  '/api/v1/invoices/:id/pdf': { make: async (a) => ({ id: (await a.post('/api/v1/invoices', { name: 'Iso' })).body.data.id }) },
  '/api/v1/invoices/:id/status': { make: async (a) => ({ id: (await a.post('/api/v1/invoices', {})).body.data.id }), body: { status: 'paid' } },
  '/api/v1/jobs/:id/create-invoice': { make: async (a) => ({ id: (await a.post('/api/v1/jobs', { name: 'Iso' })).body.data.id }) },
  '/api/v1/requests/:id/create-quote': { make: async (a) => ({ id: (await a.post('/api/v1/requests', { name: 'Iso' })).body.data.id }) },
  '/api/v1/services/:id': { make: async (a) => ({ id: (await a.post('/api/v1/services', { name: 'Iso' })).body.data.id }), body: { price: 9 } },
  '/api/v1/tax-rates/:id': { make: async (a) => ({ id: (await a.post('/api/v1/tax-rates', { name: 'Iso', rate: 1 })).body.data.id }), body: { rate: 2 } },
  '/api/v1/quote-templates/:id': {
    make: async (a) => ({ id: (await a.post('/api/v1/quote-templates', { template_name: 'Iso' })).body.data.id }),
    body: { template_name: 'Changed' },
  },
  '/api/v1/quote-templates/:id/create-quote': {
    make: async (a) => ({ id: (await a.post('/api/v1/quote-templates', { template_name: 'Iso' })).body.data.id }),
  },
  '/api/v1/events/:id': { make: async (a) => ({ id: await event(a) }), body: { name: 'Changed' } },
  '/api/v1/events/:id/status': { make: async (a) => ({ id: await event(a) }), body: { status: 'cancelled' } },
  '/api/v1/time-entries/:id': { make: async (a) => ({ id: (await timeEntry(a)).id }), body: { total_time: 9 } },
  '/api/v1/timesheets/:id': { make: async (a) => ({ id: (await timeEntry(a)).timesheet_id }) },
  // E28, E29: another workspace's import or export is not found.
  '/api/v1/imports/:id': {
    make: async (a, t) => {
      const { workspace_id } = (await a.get(`/api/v1/contacts/${await contact(a)}`)).body.data;
      const row = await insertImport(t.db, newImport(workspace_id, null, 'services', true, ['name'], `${workspace_id}/${'0'.repeat(32)}.csv`));
      return { id: row.id };
    },
  },
  '/api/v1/exports/:id': { make: async (a) => ({ id: (await a.post('/api/v1/exports', {})).body.data.id }) },
  '/api/v1/timesheets/:id/status': { make: async (a) => ({ id: (await timeEntry(a)).timesheet_id }), body: { status: 'approved' } },
};

const ABSENT = 2_000_000_000;

describe('tenant isolation on every route', () => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  before(async () => {
    t = await buildTestApp();
    // Owners' sessions (stand-ins, test/helpers.ts): they may call every route, keys' and team's too.
    a = client(t.app, await ownerSessionToken(t.db, (await seedWorkspace(t.db, 'Owner Co')).workspace.id));
    b = client(t.app, await ownerSessionToken(t.db, (await seedWorkspace(t.db, 'Intruder Co')).workspace.id));
  });
  after(() => t.close());

  test('every route with path ids has a fixture', () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && r.url.includes('/:'));
    const missing = [...new Set(routes.map((r) => r.url))].filter((u) => !fixtures[u]);
    assert.deepEqual(missing, [], 'add these routes to test/isolation.test.ts');
  });

  test("another workspace's ids answer exactly like absent ids, and change nothing", async () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && r.url.includes('/:') && fixtures[r.url]);
    assert.ok(routes.length >= 4);
    for (const route of routes) {
      const fixture = fixtures[route.url];
      const params = await fixture.make(a, t);
      const fill = (values: Record<string, number | string>) => route.url.replace(/:(\w+)/g, (_, name: string) => String(values[name]));
      const absent = Object.fromEntries(Object.keys(params).map((k) => [k, ABSENT]));
      const call = (c: Client, url: string) => {
        if (route.method === 'GET') return c.get(url);
        if (route.method === 'DELETE') return c.delete(url);
        return route.method === 'POST' ? c.post(url, fixture.body ?? {}) : route.method === 'PATCH' ? c.patch(url, fixture.body ?? {}) : c.put(url, fixture.body ?? {});
      };
      // The owner's view of the same URL, where it can be read, before and after.
      const readable = t.app.routeTable.some((r) => r.method === 'GET' && r.url === route.url);
      const ownerView = readable ? await a.get(fill(params)) : null;
      const foreign = await call(b, fill(params));
      const missing = await call(b, fill(absent));
      const label = `${route.method} ${route.url}`;
      assert.equal(foreign.status, 404, `${label}: ${JSON.stringify(foreign.body)}`);
      assert.deepEqual(foreign.body, missing.body, label);
      assert.equal(foreign.status, missing.status, label);
      if (ownerView) assert.deepEqual((await a.get(fill(params))).body, ownerView.body, `${label}: the owner's record changed`);
    }
  });

  // Ids in a body, not the path: POST /notifications names its quote, invoice or
  // event by `module_id` (D19). A's records are sendable (a contact with an email),
  // so only the workspace check can refuse B.
  test("another workspace's module_id in POST /notifications answers like an absent one, and sends nothing", async () => {
    const contactId = (await a.post('/api/v1/contacts', { first_name: 'Iso', last_name: 'Lated', email: 'iso@example.test' })).body.data.id;
    const jobId = (await a.post('/api/v1/jobs', { contact_id: contactId })).body.data.id;
    const cases = [
      { type: 'quote_to_customer', path: '/api/v1/quotes', id: (await a.post('/api/v1/quotes', { contact_id: contactId })).body.data.id },
      { type: 'invoice_to_customer', path: '/api/v1/invoices', id: (await a.post('/api/v1/invoices', { contact_id: contactId })).body.data.id },
      {
        type: 'appointment_reminder',
        path: '/api/v1/events',
        id: (await a.post('/api/v1/events', { start_date: '2030-01-02', end_date: '2030-01-02', job_id: jobId })).body.data.id,
      },
    ];
    for (const c of cases) {
      const before = (await a.get(`${c.path}/${c.id}`)).body;
      const foreign = await b.post('/api/v1/notifications', { type: c.type, module_id: c.id });
      const missing = await b.post('/api/v1/notifications', { type: c.type, module_id: ABSENT });
      assert.equal(foreign.status, 404, `${c.type}: ${JSON.stringify(foreign.body)}`);
      assert.deepEqual(foreign.body, missing.body, c.type);
      assert.deepEqual((await a.get(`${c.path}/${c.id}`)).body, before, `${c.type}: the owner's record changed`);
    }
    // (The invite fixtures above queued team emails; no customer message was queued.)
    assert.deepEqual(await t.db.selectFrom('messages').select('id').where('type', '!=', 'team_invite').execute(), [], 'no message was queued in either workspace');
    // The same ids are sendable by their owner: the 404 above was the workspace check.
    for (const c of cases) assert.equal((await a.post('/api/v1/notifications', { type: c.type, module_id: c.id })).status, 201, c.type);
  });

  // E22: the batch names jobs and clients in its body; A's are unknown ids to B (D11), and stay unbilled.
  test("another workspace's job_ids and contact_ids in POST /invoices/batch answer like absent ones, and bill nothing", async () => {
    const contactId = await contact(a);
    const jobId = (await a.post('/api/v1/jobs', { contact_id: contactId, status: 'completed', line_items: [{ name: 'Work', unitPrice: 10 }] })).body.data.id;
    for (const field of ['job_ids', 'contact_ids']) {
      const id = field === 'job_ids' ? jobId : contactId;
      const foreign = await b.post('/api/v1/invoices/batch', { [field]: [id] });
      const missing = await b.post('/api/v1/invoices/batch', { [field]: [ABSENT] });
      assert.equal(foreign.status, 400, JSON.stringify(foreign.body));
      assert.deepEqual(foreign.body.details.map((d: { path: unknown }) => d.path), missing.body.details.map((d: { path: unknown }) => d.path));
    }
    assert.deepEqual((await b.get('/api/v1/billable-work')).body.data, []);
    assert.ok((await a.get('/api/v1/billable-work')).body.data.some((w: { job_id: number }) => w.job_id === jobId), "A's job is still billable");
  });

  test('lists of another workspace never show its records', async () => {
    await contact(a);
    const lists = t.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/') && !r.url.includes(':') && !r.hidden);
    for (const route of lists) {
      // B's own members, workspace, settings and keys (the keys are checked below).
      if (['/api/v1/users', '/api/v1/workspace', '/api/v1/workspace/automations', '/api/v1/notification-settings', '/api/v1/keys', '/api/v1/me'].includes(route.url)) continue;
      const res = await b.get(route.url);
      if (route.url === '/api/v1/home') {
        // Not a list: B's dashboard counts and shows nothing of A's.
        assert.deepEqual([res.body.data.new_requests, res.body.data.jobs_to_invoice, res.body.data.activity], [0, 0, []], route.url);
        continue;
      }
      if (route.url.startsWith('/api/v1/reports/')) {
        // E27: B's reports list B's months (zeros) and a Total row, nothing of A's.
        assert.equal(res.status, 200, route.url);
        assert.ok(res.body.data.every((row: Record<string, unknown>) => Object.values(row).every((v) => typeof v !== 'number' || v === 0)), route.url);
        continue;
      }
      if (res.status === 400) continue; // lists that need a parent (uploads, comments) are covered by their fixtures
      assert.equal(res.status, 200, route.url);
      assert.deepEqual(res.body.data, [], route.url);
    }
    const aKeys = new Set((await a.get('/api/v1/keys?per_page=100')).body.data.map((k: { id: number }) => k.id));
    const bKeys = (await b.get('/api/v1/keys?per_page=100')).body.data.map((k: { id: number }) => k.id);
    assert.ok(aKeys.size > 0 && bKeys.length > 0);
    assert.deepEqual(bKeys.filter((id: number) => aKeys.has(id)), [], "A's keys are not in B's list");
    const users = (await b.get('/api/v1/users')).body.data;
    assert.equal(users.length, 1);
    assert.match(users[0].email, /^owner/);
    const me = (await b.get('/api/v1/me')).body.data; // A1: the caller's own, nothing of A's
    assert.deepEqual(me.workspaces.map((w: { id: number }) => w.id), [me.workspace.id]);
    assert.equal(me.user.id, users[0].user_id);
  });
});
