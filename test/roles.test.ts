import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, keyFor, seedUser, seedWorkspace, type TestApp } from './helpers.ts';
import { multipartBody, png } from './upload-fixtures.ts';
import { type Browser, call, setUp } from './session-client.ts';

// APP.md A1 "Roles -> what a session may do", enforced by the API itself: the
// role's scopes through the one scope check, members' limits in the services.

const SCOPE = (s: string) => ({ success: false, error: `Insufficient permissions. Required scope: ${s}` });
const FORBIDDEN = { success: false, error: 'Forbidden' };

describe('roles', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  const as: Record<'owner' | 'admin' | 'manager' | 'member' | 'member2', Browser> = {} as never;
  let member: { user_id: string };
  let member2: { user_id: string };
  let jobId: number;
  let invoiceId: number;
  let quoteId: number;
  let mine: number; // a visit assigned to the member
  let theirs: number; // a visit assigned to member2
  const api = () => client(t.app, ws.token);

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    as.owner = await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    for (const role of ['admin', 'manager', 'member'] as const) {
      const u = await seedUser(t.db, ws.workspace.id, role);
      if (role === 'member') member = u;
      as[role] = await setUp(t.app, t.db, ws.workspace.id, u.user_id);
    }
    member2 = await seedUser(t.db, ws.workspace.id, 'member');
    as.member2 = await setUp(t.app, t.db, ws.workspace.id, member2.user_id);
    const contact = (await api().post('/api/v1/contacts', { first_name: 'Cy', last_name: 'Client' })).body.data.id;
    const items = [
      { name: 'Fix', quantity: 1, unitPrice: 250 },
      { name: 'Trim', description: 'Front hedge', quantity: 3, unitPrice: 40, unit_cost: 15 },
    ];
    jobId = (await api().post('/api/v1/jobs', { contact_id: contact, line_items: items, expenses: [{ name: 'Pipe', amount: 12, date: '2025-01-10' }] })).body.data.id;
    quoteId = (await api().post('/api/v1/quotes', { contact_id: contact, line_items: [{ name: 'Fix', quantity: 1, unitPrice: 250 }] })).body.data.id;
    invoiceId = (await api().post('/api/v1/invoices', { contact_id: contact, line_items: [{ name: 'Fix', quantity: 1, unitPrice: 250 }] })).body.data.id;
    assert.equal((await api().put(`/api/v1/invoices/${invoiceId}/status`, { status: 'sent' })).status, 200);
    const visit = (who: string) => api().post('/api/v1/events', { name: 'Visit', start_date: '2026-01-05', end_date: '2026-01-05', job_id: jobId, assignee_ids: [who] });
    mine = (await visit(member.user_id)).body.data.id;
    theirs = (await visit(member2.user_id)).body.data.id;
  });
  after(() => t.close());

  test('each role gets its scopes in /me', async () => {
    // A60: team and key management are scopes only owners' and admins' sessions hold.
    assert.deepEqual((await as.owner.get('/api/v1/me')).body.data.scopes, ['read', 'write', 'team:manage', 'keys:manage']);
    assert.deepEqual((await as.admin.get('/api/v1/me')).body.data.scopes, ['read', 'write', 'team:manage', 'keys:manage']);
    const manager = (await as.manager.get('/api/v1/me')).body.data.scopes as string[];
    assert.ok(manager.includes('quotes:write') && manager.includes('invoices:write') && !manager.some((s) => s.startsWith('webhooks')));
    const memberScopes = (await as.member.get('/api/v1/me')).body.data.scopes as string[];
    assert.ok(!memberScopes.some((s) => /^(quotes|invoices|services|tax-rates|quote-templates|webhooks)/.test(s)));
  });

  test('owner and admin: webhooks; manager: every resource but webhooks (the key wording)', async () => {
    for (const who of [as.owner, as.admin]) assert.equal((await who.get('/api/webhooks/list')).status, 200);
    const refused = await as.manager.get('/api/webhooks/list');
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, SCOPE('webhooks:read'));
    const sub = await as.manager.post('/api/webhooks/subscribe', { url: 'http://127.0.0.1:9/x', event: 'new_contact' });
    assert.deepEqual(sub.body, SCOPE('webhooks:write'));
    assert.equal((await as.manager.get(`/api/v1/quotes/${quoteId}`)).status, 200);
    assert.equal((await as.manager.post('/api/v1/services', { name: 'Mow', price: 30 })).status, 201);
    assert.equal((await as.manager.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: 10, method: 'cash', date: '2026-01-05' })).status, 201);
    const job = await as.manager.get(`/api/v1/jobs/${jobId}`);
    assert.equal(job.body.data.total, 370, 'managers see prices');
    assert.equal(job.body.data.line_items.length, 2);
    assert.equal('work_items' in job.body.data, false);
  });

  test('member: no quotes, invoices, payments or prices (403 with the scope named), nothing written', async () => {
    const before = await t.db.selectFrom('invoice_payments').select('id').execute();
    for (const [url, scope] of [
      ['/api/v1/quotes', 'quotes:read'],
      [`/api/v1/quotes/${quoteId}`, 'quotes:read'],
      ['/api/v1/invoices', 'invoices:read'],
      [`/api/v1/invoices/${invoiceId}/payments`, 'invoices:read'],
      ['/api/v1/services', 'services:read'],
      ['/api/v1/tax-rates', 'tax-rates:read'],
    ]) {
      const res = await as.member.get(url);
      assert.equal(res.status, 403, url);
      assert.deepEqual(res.body, SCOPE(scope), url);
    }
    const pay = await as.member.post(`/api/v1/invoices/${invoiceId}/payments`, { amount: 10, method: 'cash', date: '2026-01-05' });
    assert.deepEqual(pay.body, SCOPE('invoices:write'));
    assert.deepEqual((await as.member.post('/api/v1/contacts', { first_name: 'No', last_name: 'Pe' })).body, SCOPE('contacts:write'));
    assert.deepEqual((await as.member.put(`/api/v1/jobs/${jobId}`, { name: 'Mine now' })).body, SCOPE('jobs:write'));
    assert.equal((await t.db.selectFrom('invoice_payments').select('id').execute()).length, before.length);
    for (const url of ['/api/v1/contacts', '/api/v1/properties', '/api/v1/requests', '/api/v1/jobs', '/api/v1/events', '/api/v1/users']) {
      assert.equal((await as.member.get(url)).status, 200, url);
    }
  });

  test('member: jobs without line items, totals, expenses or other money; the work to do as work_items', async () => {
    const MONEY = ['line_items', 'total', 'expenses', 'discount', 'discount_unit', 'deposit', 'deposit_unit', 'tax_rate', 'tax_rate_id'];
    const one = await as.member.get(`/api/v1/jobs/${jobId}`);
    assert.equal(one.status, 200);
    for (const f of MONEY) assert.equal(f in one.body.data, false, f);
    assert.equal(one.body.data.id, jobId);
    assert.equal(one.body.data.contact.first_name, 'Cy');
    // The job's line items in their order, with their ids: what to do and how much, no price, cost or tax.
    const owners = await as.owner.get(`/api/v1/jobs/${jobId}`);
    const lineIds = owners.body.data.line_items.map((li: { id: string }) => li.id);
    assert.deepEqual(one.body.data.work_items, [
      { id: lineIds[0], name: 'Fix', description: null, quantity: 1 },
      { id: lineIds[1], name: 'Trim', description: 'Front hedge', quantity: 3 },
    ]);
    for (const item of one.body.data.work_items) assert.deepEqual(Object.keys(item), ['id', 'name', 'description', 'quantity']);
    // No money anywhere in the member's answer, at any depth: no price, cost, tax, total or expense.
    const keys = (v: unknown): string[] =>
      Array.isArray(v) ? v.flatMap(keys) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)]) : [];
    const money = keys(one.body.data).filter((k) => /price|cost|tax|total|amount|discount|deposit|expense|line_items/i.test(k));
    assert.deepEqual(money, []);
    const list = await as.member.get('/api/v1/jobs');
    assert.equal(list.body.data[0].id, jobId);
    assert.equal('total' in list.body.data[0], false);
    assert.equal('work_items' in list.body.data[0], false);
    // The same job, to the owner and to a key, with its money and its line items, no work_items.
    assert.equal(owners.body.data.total, 370);
    assert.deepEqual(
      owners.body.data.line_items.map((li: { name: string; unitPrice: number }) => [li.name, li.unitPrice]),
      [['Fix', 250], ['Trim', 40]],
    );
    assert.equal('work_items' in owners.body.data, false);
    assert.equal('work_items' in (await api().get(`/api/v1/jobs/${jobId}`)).body.data, false);
    assert.equal((await api().get('/api/v1/jobs')).body.data[0].total, 370);
  });

  test('member: the status of their own visits only; nothing else about visits', async () => {
    const ok = await as.member.put(`/api/v1/events/${mine}/status`, { status: 'in_progress' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.status, 'in_progress');
    assert.equal((await as.member.put(`/api/v1/events/${mine}`, { status: 'completed' })).body.data.status, 'completed');
    for (const [method, url, body] of [
      ['PUT', `/api/v1/events/${theirs}/status`, { status: 'completed' }],
      ['PUT', `/api/v1/events/${theirs}`, { status: 'completed' }],
      ['PUT', `/api/v1/events/${mine}`, { name: 'Renamed' }],
      ['PUT', `/api/v1/events/${mine}`, { status: 'completed', start_date: '2026-02-01', end_date: '2026-02-01' }],
      ['DELETE', `/api/v1/events/${mine}`, undefined],
      ['POST', '/api/v1/events', { name: 'Mine', start_date: '2026-01-06', end_date: '2026-01-06', assignee_ids: [member.user_id] }],
    ] as const) {
      const res = await call(t.app, method, url, { cookie: as.member.cookie, csrf: as.member.csrf, body });
      assert.equal(res.status, 403, `${method} ${url} ${JSON.stringify(body)}`);
      assert.deepEqual(res.body, FORBIDDEN);
    }
    const rows = await t.db.selectFrom('events').select(['id', 'name', 'status', 'start_date']).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.id, r.name, r.status, r.start_date]),
      [
        [mine, 'Visit', 'completed', '2026-01-05'],
        [theirs, 'Visit', 'scheduled', '2026-01-05'],
      ],
    );
    assert.equal((await as.member.put('/api/v1/events/999999/status', { status: 'completed' })).status, 404);
    assert.equal((await as.member.delete('/api/v1/events/999999')).status, 404);
    // Managers change any visit.
    assert.equal((await as.manager.put(`/api/v1/events/${theirs}`, { name: 'Moved' })).status, 200);
  });

  test("member: their own time entries only (create, edit, delete, read); another's is 403 Forbidden", async () => {
    const own = await as.member.post('/api/v1/time-entries', { start_date: '2026-01-05', end_date: '2026-01-05', start_time: '08:00', end_time: '10:00', job_id: jobId });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    assert.equal(own.body.data.user_id, member.user_id, "user_id defaults to the signed-in person");
    const other = await as.member2.post('/api/v1/time-entries', { start_date: '2026-01-05', end_date: '2026-01-05', total_time: 3 });
    const count = async () => (await t.db.selectFrom('time_entries').select('id').execute()).length;
    const n = await count();
    const refused = await as.member.post('/api/v1/time-entries', { start_date: '2026-01-05', end_date: '2026-01-05', total_time: 1, user_id: member2.user_id });
    assert.deepEqual(refused.body, FORBIDDEN);
    assert.equal(await count(), n, 'nothing written');
    assert.deepEqual((await as.member.put(`/api/v1/time-entries/${other.body.data.id}`, { total_time: 9 })).body, FORBIDDEN);
    assert.deepEqual((await as.member.put(`/api/v1/time-entries/${own.body.data.id}`, { user_id: member2.user_id })).body, FORBIDDEN, 'nor give one away');
    assert.deepEqual((await as.member.delete(`/api/v1/time-entries/${other.body.data.id}`)).body, FORBIDDEN);
    assert.deepEqual((await as.member.get(`/api/v1/time-entries/${other.body.data.id}`)).body, FORBIDDEN);
    assert.equal(await count(), n);
    const list = await as.member.get('/api/v1/time-entries');
    assert.deepEqual(list.body.data.map((e: { id: number }) => e.id), [own.body.data.id]);
    const asked = await as.member.get(`/api/v1/time-entries?user_id=${member2.user_id}`);
    assert.deepEqual(asked.body.data.map((e: { id: number }) => e.id), [own.body.data.id], 'asking for another user still shows only their own');
    assert.equal((await as.member.put(`/api/v1/time-entries/${own.body.data.id}`, { total_time: 2.5 })).body.data.total_time, 2.5);
    // Timesheets: their own, submitted but not approved by themselves.
    const sheets = (await as.member.get('/api/v1/timesheets')).body.data;
    assert.equal(sheets.length, 1);
    assert.equal((await as.member.put(`/api/v1/timesheets/${sheets[0].id}/status`, { status: 'pending' })).status, 200);
    assert.deepEqual((await as.member.put(`/api/v1/timesheets/${sheets[0].id}/status`, { status: 'approved' })).body, FORBIDDEN);
    const theirSheet = other.body.data.timesheet_id;
    assert.deepEqual((await as.member.get(`/api/v1/timesheets/${theirSheet}`)).body, FORBIDDEN);
    assert.equal((await as.manager.put(`/api/v1/timesheets/${sheets[0].id}/status`, { status: 'approved' })).status, 200);
    assert.equal((await as.manager.put(`/api/v1/time-entries/${other.body.data.id}`, { total_time: 4 })).status, 200, 'managers change anyone’s');
    assert.equal((await as.member.delete(`/api/v1/time-entries/${own.body.data.id}`)).status, 200);
  });

  test('member: comments on what they can read; not on quotes', async () => {
    const ok = await as.member.post('/api/v1/comments', { module_type: 'job', module_id: jobId, comment: 'Arrived' });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.author_id ?? member.user_id, member.user_id);
    const row = await t.db.selectFrom('comments').select('author_id').where('id', '=', ok.body.data.id).executeTakeFirstOrThrow();
    assert.equal(row.author_id, member.user_id, 'author_id names the signed-in person');
    const quote = await as.member.post('/api/v1/comments', { module_type: 'quote', module_id: quoteId, comment: 'Hm' });
    assert.equal(quote.status, 403);
  });

  test('member: a photo on a job they can read; not on a quote', async () => {
    const upload = (moduleType: string, moduleId: number) => {
      const { payload, contentType } = multipartBody([
        { name: 'module_type', value: moduleType },
        { name: 'module_id', value: String(moduleId) },
        { name: 'file', filename: 'site.png', type: 'image/png', data: png() },
      ]);
      return t.app.inject({ method: 'POST', url: '/api/v1/uploads', payload, headers: { 'content-type': contentType, cookie: `fieldwork_session=${as.member.cookie}`, 'x-csrf-token': as.member.csrf } });
    };
    const ok = await upload('job', jobId);
    assert.equal(ok.statusCode, 201, ok.body);
    const refused = await upload('quote', quoteId);
    assert.equal(refused.statusCode, 403);
    const { payload, contentType } = multipartBody([{ name: 'module_type', value: 'job' }, { name: 'module_id', value: String(jobId) }, { name: 'file', filename: 'a.png', type: 'image/png', data: png() }]);
    const noCsrf = await t.app.inject({ method: 'POST', url: '/api/v1/uploads', payload, headers: { 'content-type': contentType, cookie: `fieldwork_session=${as.member.cookie}` } });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal(noCsrf.json().error, 'Invalid CSRF token');
  });

  test("a key keeps its own scopes, whatever its user's role", async () => {
    const token = await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: member.user_id });
    assert.equal((await client(t.app, token).get('/api/v1/quotes')).status, 200);
    const job = await client(t.app, token).get(`/api/v1/jobs/${jobId}`);
    assert.equal(job.body.data.total, 370);
    assert.equal('work_items' in job.body.data, false);
    const me = await client(t.app, token).get('/api/v1/me');
    assert.equal(me.body.data.user.role, 'member');
    assert.deepEqual(me.body.data.scopes, ['read', 'write']);
  });
});
