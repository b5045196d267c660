import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { zonedDate } from '../../domain/zoned-time.ts';
import { pdfText } from '../../../test/pdf-text.ts';
import { type Browser, setUp } from '../../../test/session-client.ts';
import { buildTestApp, type Client, client, keyFor, type Res, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// E26, E27: every cell of every report checked against a set of documents built
// through the API, whose sums are worked out by hand below.

describe('reports', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: Client;
  const as = {} as Record<'owner' | 'manager' | 'member', Browser>;
  let worker: { user_id: string };
  let helper: { user_id: string };
  let ann: number;
  let bob: number;
  const jobs = {} as Record<'j1' | 'j2' | 'j3' | 'j4', { id: number; number: number }>;
  const names = {} as Record<string, string>;

  const ok = async (p: Promise<Res>, status = 201) => {
    const res = await p;
    assert.equal(res.status, status, JSON.stringify(res.body));
    return res.body.data;
  };
  const invoice = (body: Record<string, unknown>) => ok(api.post('/api/v1/invoices', { name: 'Inv', ...body }));
  const pay = (id: number, amount: number, paid_on: string) => ok(api.post(`/api/v1/invoices/${id}/payments`, { amount, paid_on }));
  const entry = (user_id: string, job_id: number, date: string, start_time: string, end_time: string) =>
    ok(api.post('/api/v1/time-entries', { user_id, job_id, start_date: date, end_date: date, start_time, end_time }));

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    as.owner = await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    const manager = await seedUser(t.db, ws.workspace.id, 'manager');
    as.manager = await setUp(t.app, t.db, ws.workspace.id, manager.user_id);
    const member = await seedUser(t.db, ws.workspace.id, 'member');
    as.member = await setUp(t.app, t.db, ws.workspace.id, member.user_id);
    worker = await seedUser(t.db, ws.workspace.id, 'member');
    helper = await seedUser(t.db, ws.workspace.id, 'member'); // no cost per hour: costs 0
    await ok(as.owner.put(`/api/v1/users/${ws.owner.user_id}`, { cost_rate: 40 }), 200);
    await ok(as.owner.put(`/api/v1/users/${worker.user_id}`, { cost_rate: 25.5 }), 200);
    for (const u of (await api.get('/api/v1/users?per_page=100')).body.data) names[u.user_id] = `${u.first_name} ${u.last_name}`;

    ann = (await ok(api.post('/api/v1/contacts', { first_name: 'Ann', last_name: 'Alpha', email: 'ann@example.test' }))).id;
    bob = (await ok(api.post('/api/v1/contacts', { first_name: 'Bob', last_name: 'Beta' }))).id;
    jobs.j1 = await ok(
      api.post('/api/v1/jobs', {
        name: 'Boiler swap',
        contact_id: ann,
        line_items: [
          { name: 'Boiler', quantity: 2, unitPrice: 100, unit_cost: 60 },
          { name: 'Labour', quantity: 3, unitPrice: 50, unit_cost: 12.5 },
          { name: 'Extra', unitPrice: 10, unit_cost: 5, optional: true },
        ],
        expenses: [
          { name: 'Fuel', amount: 30.25, date: '2025-02-03' },
          { name: 'Parts', amount: 10, date: '2024-12-01' },
        ],
      }),
    );
    jobs.j2 = await ok(api.post('/api/v1/jobs', { name: 'Survey', contact_id: bob }));
    jobs.j3 = await ok(api.post('/api/v1/jobs', { name: 'Permit only', expenses: [{ name: 'Permit', amount: 45, date: '2025-03-15' }] }));
    jobs.j4 = await ok(api.post('/api/v1/jobs', { name: 'Old', expenses: [{ name: 'Skip', amount: 99, date: '2024-06-01' }] }));

    // I1: 350 + 10% tax = 385, partly paid in February.
    const i1 = await invoice({
      contact_id: ann,
      job_id: jobs.j1.id,
      status: 'sent',
      date: '2025-01-10',
      due_date: '2025-01-20',
      tax_rate: 10,
      line_items: [
        { name: 'Boiler', quantity: 2, unitPrice: 100 },
        { name: 'Labour', quantity: 3, unitPrice: 50 },
      ],
    });
    assert.equal(i1.total, 385);
    await pay(i1.id, 100, '2025-02-05');
    // I2: 80.55 untaxed, paid in full.
    const i2 = await invoice({ contact_id: bob, job_id: jobs.j2.id, status: 'sent', date: '2025-02-14', due_date: '2025-03-01', line_items: [{ name: 'Survey', unitPrice: 80.55, taxable: false }] });
    await pay(i2.id, 80.55, '2025-02-20');
    // I3 draft and I4 cancelled: never counted.
    await invoice({ contact_id: ann, status: 'draft', date: '2025-03-31', line_items: [{ name: 'Boiler', unitPrice: 1000 }] });
    const i4 = await invoice({ contact_id: bob, status: 'sent', date: '2025-03-05', line_items: [{ name: 'Survey', unitPrice: 500 }] });
    await ok(api.put(`/api/v1/invoices/${i4.id}`, { status: 'cancelled' }), 200);
    // I5: no client, a voided payment.
    const i5 = await invoice({ status: 'sent', date: '2025-03-20', due_date: '2025-04-19', line_items: [{ name: 'Boiler', unitPrice: 99.99 }] });
    const voided = await pay(i5.id, 20, '2025-03-25');
    await ok(api.delete(`/api/v1/invoices/${i5.id}/payments/${voided.id}`), 200);
    // I6: dated before the range, paid in part inside it.
    const i6 = await invoice({ contact_id: ann, status: 'sent', date: '2024-12-15', due_date: '2024-12-31', line_items: [{ name: 'Old work', unitPrice: 200 }] });
    await pay(i6.id, 50, '2025-01-05');

    await entry(ws.owner.user_id, jobs.j1.id, '2025-01-15', '08:00', '12:00'); // 4 h x 40
    await entry(worker.user_id, jobs.j1.id, '2025-02-10', '09:00', '11:30'); // 2.5 h x 25.50
    await entry(worker.user_id, jobs.j2.id, '2025-03-03', '10:00', '11:15'); // 1.25 h x 25.50 = 31.875
    await entry(helper.user_id, jobs.j2.id, '2025-03-04', '10:00', '11:00'); // 1 h x nothing
    const sheets = (await api.get('/api/v1/timesheets?per_page=100')).body.data as { id: number; user_id: string; start_date: string }[];
    const sheet = (user: string, start: string) => sheets.find((s) => s.user_id === user && s.start_date === start)!.id;
    await ok(api.put(`/api/v1/timesheets/${sheet(worker.user_id, '2025-02-10')}/status`, { status: 'pending' }), 200);
    await ok(api.put(`/api/v1/timesheets/${sheet(worker.user_id, '2025-03-03')}/status`, { status: 'approved' }), 200);

    // Another workspace's documents on the same days count for nothing here.
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    const theirs = (await other.post('/api/v1/invoices', { status: 'sent', date: '2025-01-10', due_date: '2025-01-11', line_items: [{ name: 'Boiler', unitPrice: 7 }] })).body.data;
    await other.post(`/api/v1/invoices/${theirs.id}/payments`, { amount: 7, paid_on: '2025-01-12' });
  });
  after(() => t.close());

  const Q1 = 'from=2025-01-01&to=2025-03-31';
  const rows = async (url: string, c: Client | Browser = api) => {
    const res = await c.get(url);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.pagination, { page: 1, per_page: res.body.data.length, total_pages: 1 });
    return res.body.data;
  };

  test('revenue by month: invoiced by date (not draft or cancelled), collected by paid_on (voided left out), every month', async () => {
    assert.deepEqual(await rows(`/api/v1/reports/revenue?${Q1}`), [
      { key: '2025-01', label: '2025-01', invoiced: 385, collected: 50 },
      { key: '2025-02', label: '2025-02', invoiced: 80.55, collected: 180.55 },
      { key: '2025-03', label: '2025-03', invoiced: 99.99, collected: 0 },
    ]);
    assert.deepEqual(await rows('/api/v1/reports/revenue?from=2025-02-15&to=2025-04-10&group=month'), [
      { key: '2025-02', label: '2025-02', invoiced: 0, collected: 80.55 },
      { key: '2025-03', label: '2025-03', invoiced: 99.99, collected: 0 },
      { key: '2025-04', label: '2025-04', invoiced: 0, collected: 0 },
    ]);
  });

  test('revenue by client and by service', async () => {
    assert.deepEqual(await rows(`/api/v1/reports/revenue?${Q1}&group=client`), [
      { key: String(ann), label: 'Ann Alpha', invoiced: 385, collected: 150 },
      { key: null, label: 'No client', invoiced: 99.99, collected: 0 },
      { key: String(bob), label: 'Bob Beta', invoiced: 80.55, collected: 80.55 },
    ]);
    assert.deepEqual(await rows(`/api/v1/reports/revenue?${Q1}&group=service`), [
      { key: 'Boiler', label: 'Boiler', invoiced: 299.99, collected: 0 },
      { key: 'Labour', label: 'Labour', invoiced: 150, collected: 0 },
      { key: 'Survey', label: 'Survey', invoiced: 80.55, collected: 0 },
    ]);
  });

  test('receivables: open balances by age at as_of, largest first, then the Total row', async () => {
    assert.deepEqual(await rows('/api/v1/reports/receivables?as_of=2025-04-30'), [
      { contact_id: ann, name: 'Ann Alpha', current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 435, total: 435 },
      { contact_id: null, name: 'No client', current: 0, days_1_30: 99.99, days_31_60: 0, days_61_90: 0, days_over_90: 0, total: 99.99 },
      { contact_id: null, name: 'Total', current: 0, days_1_30: 99.99, days_31_60: 0, days_61_90: 0, days_over_90: 435, total: 534.99 },
    ]);
    // Due on as_of is current; I1 (due 01-20) is 30 days past on 02-19 and 31 on 02-20; I6 (due 12-31) 50 days.
    const at = async (asOf: string) => (await rows(`/api/v1/reports/receivables?as_of=${asOf}`)).map((r: Record<string, unknown>) => [r.name, r.current, r.days_1_30, r.days_31_60, r.days_61_90, r.days_over_90]);
    assert.deepEqual(await at('2025-02-19'), [
      ['Ann Alpha', 0, 285, 150, 0, 0],
      ['No client', 99.99, 0, 0, 0, 0],
      ['Total', 99.99, 285, 150, 0, 0],
    ]);
    assert.deepEqual(await at('2025-02-20'), [
      ['Ann Alpha', 0, 0, 435, 0, 0],
      ['No client', 99.99, 0, 0, 0, 0],
      ['Total', 99.99, 0, 435, 0, 0],
    ]);
  });

  test('job costing: revenue less tax, labour at each member\'s cost, line costs, expenses, profit and margin', async () => {
    assert.deepEqual(await rows('/api/v1/reports/job-costing?from=2025-02-01&to=2025-03-31'), [
      {
        job_id: jobs.j1.id,
        number: jobs.j1.number,
        name: 'Boiler swap',
        contact_id: ann,
        revenue: 350,
        labour_hours: 6.5,
        labour_cost: 223.75,
        line_costs: 157.5,
        expenses: 40.25,
        profit: -71.5,
        margin: -20.4,
      },
      { job_id: jobs.j2.id, number: jobs.j2.number, name: 'Survey', contact_id: bob, revenue: 80.55, labour_hours: 2.25, labour_cost: 31.88, line_costs: 0, expenses: 0, profit: 48.67, margin: 60.4 },
      { job_id: jobs.j3.id, number: jobs.j3.number, name: 'Permit only', contact_id: null, revenue: 0, labour_hours: 0, labour_cost: 0, line_costs: 0, expenses: 45, profit: -45, margin: null },
    ]);
    // January: J1 by its invoice and its owner's entry; J2 and J3 have nothing dated then.
    assert.deepEqual((await rows('/api/v1/reports/job-costing?from=2025-01-01&to=2025-01-31')).map((r: { job_id: number }) => r.job_id), [jobs.j1.id]);
    assert.deepEqual(await rows('/api/v1/reports/job-costing?from=2023-01-01&to=2023-12-31'), []);
  });

  test('time: hours per member and week by timesheet status', async () => {
    assert.deepEqual(await rows(`/api/v1/reports/time?${Q1}`), [
      { user_id: ws.owner.user_id, name: names[ws.owner.user_id], week_start: '2025-01-13', draft: 4, pending: 0, approved: 0, rejected: 0, total: 4 },
      { user_id: worker.user_id, name: names[worker.user_id], week_start: '2025-02-10', draft: 0, pending: 2.5, approved: 0, rejected: 0, total: 2.5 },
      ...[
        { user_id: worker.user_id, name: names[worker.user_id], week_start: '2025-03-03', draft: 0, pending: 0, approved: 1.25, rejected: 0, total: 1.25 },
        { user_id: helper.user_id, name: names[helper.user_id], week_start: '2025-03-03', draft: 1, pending: 0, approved: 0, rejected: 0, total: 1 },
      ].sort((a, b) => a.name.localeCompare(b.name)),
    ]);
  });

  test('quotes: first sent in the month, accepted or declined since, amounts and conversion', async () => {
    const fresh = await seedWorkspace(t.db);
    const q = client(t.app, fresh.token);
    const quote = async (unitPrice: number, ...statuses: string[]) => {
      const made = await ok(q.post('/api/v1/quotes', { name: 'Q', line_items: [{ name: 'Work', unitPrice }] }));
      for (const status of statuses) await ok(q.put(`/api/v1/quotes/${made.id}`, { status }), 200);
    };
    await quote(100, 'awaiting_response', 'accepted');
    await quote(50.5, 'awaiting_response', 'declined');
    await quote(20, 'awaiting_response');
    await quote(10, 'awaiting_response', 'draft', 'awaiting_response'); // sent twice: once
    await quote(999); // never sent
    const month = zonedDate(Date.now(), null).slice(0, 7);
    const row = { key: month, sent: 4, accepted: 1, declined: 1, sent_amount: 180.5, accepted_amount: 100, conversion: 25 };
    assert.deepEqual(await rows('/api/v1/reports/quotes', q), [row], 'default: the current month');
    const [y, m] = month.split('-').map(Number) as [number, number];
    const prev = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
    assert.deepEqual(await rows(`/api/v1/reports/quotes?from=${prev}-01&to=${zonedDate(Date.now(), null)}`, q), [
      { key: prev, sent: 0, accepted: 0, declined: 0, sent_amount: 0, accepted_amount: 0, conversion: null },
      row,
    ]);
  });

  test('CSV: ?format=csv or Accept: text/csv, the same rows, a header row, CRLF, 2 decimals', async () => {
    const expected = ['key,label,invoiced,collected', '2025-01,2025-01,385.00,50.00', '2025-02,2025-02,80.55,180.55', '2025-03,2025-03,99.99,0.00', ''].join('\r\n');
    for (const [url, headers] of [
      [`/api/v1/reports/revenue?${Q1}&format=csv`, {}],
      [`/api/v1/reports/revenue?${Q1}`, { accept: 'text/csv' }],
    ] as [string, Record<string, string>][]) {
      const res = await api.get(url, headers);
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.equal(res.body, expected);
    }
    const costing = await api.get('/api/v1/reports/job-costing?from=2025-02-01&to=2025-03-31&format=csv');
    const lines = String(costing.body).split('\r\n');
    assert.equal(lines[0], 'job_id,number,name,contact_id,revenue,labour_hours,labour_cost,line_costs,expenses,profit,margin');
    assert.equal(lines[1], `${jobs.j1.id},${jobs.j1.number},Boiler swap,${ann},350.00,6.50,223.75,157.50,40.25,-71.50,-20.4`);
    assert.equal(lines[3], `${jobs.j3.id},${jobs.j3.number},Permit only,,0.00,0.00,0.00,0.00,45.00,-45.00,`);
    const names = await api.get('/api/v1/reports/receivables?as_of=2025-04-30&format=csv');
    assert.equal(String(names.body).split('\r\n')[3], ',Total,0.00,99.99,0.00,0.00,435.00,534.99');
    // RFC 4180 quoting of a name with a comma and a quote.
    const odd = client(t.app, (await seedWorkspace(t.db)).token);
    await odd.post('/api/v1/invoices', { status: 'sent', date: '2025-01-02', line_items: [{ name: 'Pipe, "copper"', unitPrice: 3 }] });
    assert.equal((await odd.get(`/api/v1/reports/revenue?${Q1}&group=service&format=csv`)).body, 'key,label,invoiced,collected\r\n"Pipe, ""copper""","Pipe, ""copper""",3.00,0.00\r\n');
  });

  test('bad dates, from after to, a bad group: 400 naming the field', async () => {
    for (const [url, field] of [
      ['/api/v1/reports/revenue?from=2025-02-30', 'from'],
      ['/api/v1/reports/time?to=2025-13-01', 'to'],
      ['/api/v1/reports/quotes?from=yesterday', 'from'],
      ['/api/v1/reports/job-costing?from=2025-03-01&to=2025-02-01', 'from'],
      ['/api/v1/reports/receivables?as_of=2025-02-29', 'as_of'],
      ['/api/v1/reports/revenue?group=week', 'group'],
      ['/api/v1/reports/revenue?format=xml', 'format'],
    ]) {
      const res = await api.get(url!);
      assert.equal(res.status, 400, url);
      assert.deepEqual([...new Set(res.body.details.map((d: { path: string[] }) => d.path.join('.')))], [field], url);
    }
  });

  test('roles: owners, admins and managers and keys with reports:read; a member\'s session and other keys get 403', async () => {
    const REPORTS = ['revenue', 'receivables', 'job-costing', 'time', 'quotes'];
    for (const r of REPORTS) {
      assert.equal((await as.owner.get(`/api/v1/reports/${r}`)).status, 200, r);
      assert.equal((await as.manager.get(`/api/v1/reports/${r}`)).status, 200, r);
      const member = await as.member.get(`/api/v1/reports/${r}`);
      assert.equal(member.status, 403, r);
      assert.deepEqual(member.body, { success: false, error: 'Insufficient permissions. Required scope: reports:read' });
    }
    const readOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['reports:read']));
    assert.equal((await readOnly.get('/api/v1/reports/revenue')).status, 200);
    const invoicesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:read', 'users:read']));
    assert.equal((await invoicesOnly.get('/api/v1/reports/revenue')).status, 403);
    const general = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', ['read']));
    assert.equal((await general.get('/api/v1/reports/time')).status, 200, "a general key's read grants reports:read");
  });

  test('E26 cost_rate: written by owners and admins, shown with reports:read, absent for members and other keys', async () => {
    const rate = (list: { user_id: string; cost_rate?: number | null }[], id: string) => list.find((u) => u.user_id === id);
    for (const c of [as.owner, as.manager, api]) {
      const list = (await c.get('/api/v1/users?per_page=100')).body.data;
      assert.equal(rate(list, worker.user_id)?.cost_rate, 25.5);
      assert.equal(rate(list, helper.user_id)?.cost_rate, null, 'null when unset');
      assert.equal((await c.get(`/api/v1/users/${worker.user_id}`)).body.data.cost_rate, 25.5);
    }
    const usersOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['users:read']));
    for (const c of [as.member, usersOnly]) {
      const list = (await c.get('/api/v1/users?per_page=100')).body.data;
      assert.ok(list.every((u: object) => !('cost_rate' in u)), JSON.stringify(list[0]));
      const one = await c.get(`/api/v1/users/${worker.user_id}`);
      assert.equal(one.status, 200);
      assert.equal('cost_rate' in one.body.data, false);
    }
    assert.equal((await as.manager.put(`/api/v1/users/${worker.user_id}`, { cost_rate: 99 })).status, 403);
    assert.equal((await api.put(`/api/v1/users/${worker.user_id}`, { cost_rate: 99 })).status, 403, 'no key manages the team');
    for (const bad of [-1, 1.234, 'ten']) {
      const res = await as.owner.put(`/api/v1/users/${worker.user_id}`, { cost_rate: bad });
      assert.equal(res.status, 400, String(bad));
      assert.deepEqual(res.body.details[0].path, ['cost_rate']);
    }
    assert.equal((await api.get(`/api/v1/users/${worker.user_id}`)).body.data.cost_rate, 25.5, 'nothing written');
    assert.equal((await api.get('/api/v1/users/00000000-0000-4000-8000-000000000000')).status, 404);
    const cleared = await as.owner.put(`/api/v1/users/${helper.user_id}`, { cost_rate: null, job_title: 'Helper' });
    assert.deepEqual([cleared.body.data.cost_rate, cleared.body.data.job_title], [null, 'Helper']);
  });

  test('E26 unit_cost: kept on quotes, jobs, invoices and templates; never on the hub, the PDF or the email; not for members', async () => {
    const COST = 777.31;
    const item = { name: 'Valve', quantity: 1, unitPrice: 12, unit_cost: COST };
    const read = (d: { line_items: { unit_cost?: number }[] }) => d.line_items[0]!.unit_cost;
    for (const path of ['quotes', 'jobs', 'invoices']) {
      const made = await ok(api.post(`/api/v1/${path}`, { contact_id: ann, line_items: [item] }));
      assert.equal(read(made), COST, path);
      assert.equal(read((await api.get(`/api/v1/${path}/${made.id}`)).body.data), COST, path);
    }
    const template = await ok(api.post('/api/v1/quote-templates', { template_name: 'Costed', line_items: [item] }));
    assert.equal(read(template), COST);
    assert.equal('unit_cost' in (await ok(api.post('/api/v1/jobs', { line_items: [{ name: 'Plain', unitPrice: 1 }] }))).line_items[0], false, 'absent when unset');
    const bad = await api.post('/api/v1/invoices', { line_items: [{ name: 'x', unitPrice: 1, unit_cost: -1 }] });
    assert.deepEqual([bad.status, bad.body.details[0].path], [400, ['line_items', 0, 'unit_cost']]);

    // The customer's documents: the email (and its hub link), the hub page and the PDF.
    const inv = await ok(api.post('/api/v1/invoices', { contact_id: ann, name: 'Costly', line_items: [item] }));
    await ok(api.post('/api/v1/notifications', { type: 'invoice_to_customer', module_id: inv.id }));
    const mail = await t.db.selectFrom('messages').selectAll().where('workspace_id', '=', ws.workspace.id).where('channel', '=', 'email').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const shown = ['777.31', '777,31', '777'];
    for (const text of [mail.body_text, mail.body_html ?? '', mail.subject ?? '']) for (const s of shown) assert.equal(text.includes(s), false, `email: ${s}`);
    const hubPath = new RegExp(`http://fieldwork\\.test(/hub/[A-Za-z0-9_-]{43}/invoices/${inv.id})`).exec(mail.body_text)![1]!;
    const page = await t.app.inject({ method: 'GET', url: hubPath, remoteAddress: '10.9.9.9' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Valve/);
    for (const s of shown) assert.equal(page.body.includes(s), false, `hub page: ${s}`);
    for (const pdf of [await t.app.inject({ method: 'GET', url: `${hubPath}/pdf`, remoteAddress: '10.9.9.8' }), await t.app.inject({ method: 'GET', url: `/api/v1/invoices/${inv.id}/pdf`, headers: { authorization: `Bearer ${ws.token}` } })]) {
      assert.equal(pdf.statusCode, 200);
      const text = (await pdfText(pdf.rawPayload)).map((p) => p.text).join('\n');
      assert.match(text, /Valve/);
      for (const s of shown) assert.equal(text.includes(s), false, `pdf: ${s}`);
    }
    // A member's session reads a job's line items only as `work_items`, without prices or costs (A14).
    const job = (await as.member.get(`/api/v1/jobs/${jobs.j1.id}`)).body.data;
    assert.equal(JSON.stringify(job).includes('unit_cost'), false);
  });
});
