import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backend, buildTestApp, type Client, client, keyFor, outboxEvents, seedWorkspace, spawnCli, startServer, type TestApp } from '../../../test/helpers.ts';
import { formatDate } from '../../domain/format.ts';
import { computeTotals, type LineItem } from '../../domain/line-items.ts';
import { addDays } from '../../domain/recurrence.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { runBillingDay } from './billing-daily.ts';

// EXTENSIONS E22 (billing the work done) and E23 (deposits) over the API, on the
// database under test. Every total is compared with D7's code (computeTotals) to the cent.

type Visit = { id: number; start_date: string; status: string; invoice_id: number | null };
type Item = { name: string; description?: string | null; quantity: number; unitPrice: number; taxable?: boolean; optional?: boolean };

const ITEMS: Item[] = [
  { name: 'Mowing', description: 'Front and back', quantity: 1, unitPrice: 45.55 },
  { name: 'Edging', quantity: 3, unitPrice: 3.33, taxable: false },
  { name: 'Leaf blowing', quantity: 1, unitPrice: 9.99, optional: true },
];

/** D7 of `visits` copies of the items with the job's terms, in cents. */
const d7 = (items: Item[], visits: number, terms: { discount: number; discount_unit: '%' | '$'; tax_rate: number }) =>
  computeTotals(
    Array.from({ length: visits }, () =>
      items.map((i) => ({ quantity: i.quantity, unitPrice: i.unitPrice, taxable: i.taxable ?? true, optional: i.optional ?? false })),
    ).flat(),
    terms,
  ).total;

describe('billing the work done (E22) and deposits (E23)', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let today: string;

  const contact = async (last: string, email: string | null = `${last.toLowerCase()}@example.test`) =>
    (await api.post('/api/v1/contacts', { first_name: 'Pat', last_name: last, email })).body.data.id as number;

  /** A weekly recurring job that started `weeksAgo` weeks ago, with its first `complete` visits completed. */
  async function recurringJob(
    contactId: number,
    opts: { weeksAgo?: number; complete?: number; invoicing?: string; discount?: number; discount_unit?: '%' | '$'; tax_rate?: number; quote_id?: number } = {},
  ) {
    const { weeksAgo = 4, complete = 3, invoicing = 'manual', discount = 10, discount_unit = '%', tax_rate = 8.25 } = opts;
    const res = await api.post('/api/v1/jobs', {
      name: `Lawn ${contactId}`,
      contact_id: contactId,
      type: 'recurring',
      invoicing,
      line_items: ITEMS,
      discount,
      discount_unit,
      tax_rate,
      status: 'scheduled',
      schedule: { rrule: 'FREQ=WEEKLY', starts_on: addDays(today, -7 * weeksAgo), all_day: true },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const visits = await visitsOf(res.body.data.id);
    for (const v of visits.slice(0, complete)) assert.equal((await api.put(`/api/v1/events/${v.id}/status`, { status: 'completed' })).status, 200);
    return { id: res.body.data.id as number, visits: (await visitsOf(res.body.data.id)).slice(0, complete) };
  }
  async function visitsOf(jobId: number): Promise<Visit[]> {
    const res = await api.get(`/api/v1/events?job_id=${jobId}&per_page=100&sort_by=start_date&sort_direction=asc`);
    return res.body.data;
  }
  async function oneOffJob(contactId: number, status = 'completed') {
    const res = await api.post('/api/v1/jobs', {
      name: 'Fence repair',
      contact_id: contactId,
      line_items: [{ name: 'Fence', quantity: 2, unitPrice: 120.125 }],
      discount: 15,
      discount_unit: '$',
      tax_rate: 5,
      status,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as number;
  }
  const work = async (qs = '') => (await api.get(`/api/v1/billable-work?per_page=100${qs}`)).body;
  const invoiceCount = async () =>
    Number(
      (
        await t.db
          .selectFrom('invoices')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', ws.workspace.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Clears what earlier tests left billable, so each test sees its own work. */
  const billEverything = async () => {
    await api.post('/api/v1/invoices/batch', {});
  };

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    today = zonedDate(Date.now(), null);
  });
  after(() => t.close());

  test('billable-work: a row per job with completed unbilled visits or a completed one-off job; ordered by client then job; amount by D7', async () => {
    const zed = await contact('Zed');
    const abe = await contact('Abe');
    const lawn = await recurringJob(zed, { complete: 3 });
    const fence = await oneOffJob(abe);
    await oneOffJob(abe, 'in_progress'); // not completed: not billable
    const body = await work();
    assert.deepEqual(Object.keys(body.pagination).sort(), ['page', 'per_page', 'total_pages']);
    const rows = body.data as {
      job_id: number;
      contact_id: number;
      visits: { id: number; date: string }[];
      amount: number;
      name: string;
      property_id: number | null;
    }[];
    assert.deepEqual(
      rows.map((r) => r.job_id),
      [fence, lawn.id],
      'Abe before Zed',
    );
    const lawnRow = rows[1];
    assert.deepEqual(
      lawnRow.visits,
      lawn.visits.map((v) => ({ id: v.id, date: v.start_date })),
    );
    assert.equal(Math.round(lawnRow.amount * 100), d7(ITEMS, 3, { discount: 10, discount_unit: '%', tax_rate: 8.25 }));
    assert.equal(
      Math.round(rows[0].amount * 100),
      d7([{ name: 'Fence', quantity: 2, unitPrice: 120.125 }], 1, { discount: 15, discount_unit: '$', tax_rate: 5 }),
    );
    assert.deepEqual(rows[0].visits, []);
    // through: only the visits on or before it; contact_id filters; pages
    const early = (await work(`&through=${lawn.visits[0].start_date}&contact_id=${zed}`)).data;
    assert.deepEqual(
      early.map((r: { visits: unknown[] }) => r.visits.length),
      [1],
    );
    const paged = await api.get('/api/v1/billable-work?per_page=1&page=2');
    assert.deepEqual([paged.body.data.length, paged.body.data[0].job_id, paged.body.pagination.total_pages], [1, lawn.id, 2]);
    const bad = await api.get('/api/v1/billable-work?through=2025-13-40');
    assert.deepEqual([bad.status, bad.body.error], [400, 'Invalid request']);
    await billEverything();
  });

  test('batch: one draft per job, a line per item per visit with its date, D7 totals with % and $ discounts and tax, visits billed; again: 200 and nothing', async () => {
    const c = await contact('Batch');
    const pct = await recurringJob(c, { complete: 4, discount: 12.5, discount_unit: '%', tax_rate: 7.75 });
    const usd = await recurringJob(c, { complete: 2, discount: 5.05, discount_unit: '$', tax_rate: 13 });
    const fence = await oneOffJob(c);
    const res = await api.post('/api/v1/invoices/batch', { contact_ids: [c], payment_terms: 'net_14' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.meta, { created: 3, sent: 0, not_sent: [] });
    const byJob = new Map(res.body.data.map((i: { job_id: number }) => [i.job_id, i]));
    for (const [job, terms] of [
      [pct, { discount: 12.5, discount_unit: '%' as const, tax_rate: 7.75 }],
      [usd, { discount: 5.05, discount_unit: '$' as const, tax_rate: 13 }],
    ] as const) {
      const inv = byJob.get(job.id) as {
        id: number;
        number: number;
        status: string;
        date: string;
        due_date: string;
        payment_terms: string;
        total: number;
        line_items: LineItem[];
        event_ids: number[];
      };
      assert.equal(inv.status, 'draft');
      assert.ok(Number.isInteger(inv.number));
      assert.deepEqual([inv.date, inv.payment_terms, inv.due_date], [today, 'net_14', addDays(today, 14)]);
      assert.equal(Math.round(inv.total * 100), d7(ITEMS, job.visits.length, terms), 'D7 to the cent');
      assert.equal(inv.line_items.length, ITEMS.length * job.visits.length);
      assert.deepEqual(
        inv.line_items.map((l) => l.description),
        job.visits.flatMap((v) => ITEMS.map((i) => (i.description ? `${formatDate(v.start_date)}: ${i.description}` : formatDate(v.start_date)))),
      );
      assert.equal(new Set(inv.line_items.map((l) => l.id)).size, inv.line_items.length, 'new ids');
      assert.deepEqual(
        inv.event_ids,
        job.visits.map((v) => v.id),
      );
      const got = (await api.get(`/api/v1/invoices/${inv.id}`)).body.data;
      assert.equal(got.total, inv.total);
      for (const v of await visitsOf(job.id)) assert.equal(v.invoice_id, job.visits.some((b) => b.id === v.id) ? inv.id : null);
    }
    const fenceInvoice = byJob.get(fence) as { total: number; line_items: LineItem[] };
    assert.equal(
      Math.round(fenceInvoice.total * 100),
      d7([{ name: 'Fence', quantity: 2, unitPrice: 120.125 }], 1, { discount: 15, discount_unit: '$', tax_rate: 5 }),
    );
    assert.equal(fenceInvoice.line_items[0].description ?? null, null, 'a one-off job bills its own items');
    const before = await invoiceCount();
    const again = await api.post('/api/v1/invoices/batch', { contact_ids: [c] });
    assert.deepEqual([again.status, again.body], [200, { success: true, data: [], meta: { created: 0, sent: 0, not_sent: [] } }]);
    assert.equal(await invoiceCount(), before);
    assert.deepEqual((await work(`&contact_id=${c}`)).data, []);
  });

  test('batch with send: clients with an email get invoice_to_customer and `sent`; the others stay draft in not_sent', async () => {
    const withEmail = await contact('Mailed');
    const without = await contact('Paper', null);
    const a = await recurringJob(withEmail, { complete: 1 });
    const b = await recurringJob(without, { complete: 1 });
    const res = await api.post('/api/v1/invoices/batch', { job_ids: [a.id, b.id], send: true });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const invA = res.body.data.find((i: { job_id: number }) => i.job_id === a.id);
    const invB = res.body.data.find((i: { job_id: number }) => i.job_id === b.id);
    assert.deepEqual([invA.status, invB.status], ['sent', 'draft']);
    assert.deepEqual(res.body.meta, { created: 2, sent: 1, not_sent: [invB.id] });
    const messages = await t.db
      .selectFrom('messages')
      .select(['module_id', 'type'])
      .where('workspace_id', '=', ws.workspace.id)
      .where('module_id', 'in', [invA.id, invB.id])
      .execute();
    assert.deepEqual(
      messages.map((m) => [m.module_id, m.type]),
      [[invA.id, 'invoice_to_customer']],
    );
    assert.equal((await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'invoice_sent' && e.data.id === invA.id).length, 1);
  });

  test("bad bodies are 400 with details and bill nothing; another workspace's ids are unknown ids (D11)", async () => {
    const c = await contact('Bad');
    const job = await recurringJob(c, { complete: 1 });
    const other = await seedWorkspace(t.db);
    const otherJob = (await client(t.app, other.token).post('/api/v1/jobs', { name: 'Theirs' })).body.data.id;
    const before = await invoiceCount();
    for (const [body, path] of [
      [{ through: '2025-02-30x' }, ['through']],
      [{ job_ids: ['x'] }, ['job_ids', 0]],
      [{ payment_terms: 'net_5' }, ['payment_terms']],
      [{ send: 'yes' }, ['send']],
      [{ job_ids: [job.id, otherJob] }, ['job_ids', 1]],
      [{ contact_ids: [2_000_000_000] }, ['contact_ids', 0]],
    ] as const) {
      const res = await api.post('/api/v1/invoices/batch', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(res.body.details));
    }
    assert.equal(await invoiceCount(), before);
    assert.equal((await visitsOf(job.id))[0].invoice_id, null);
    await billEverything();
  });

  test('scopes: invoices:read lists billable work, only invoices:write runs a batch', async () => {
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:read']));
    assert.equal((await reader.get('/api/v1/billable-work')).status, 200);
    assert.equal((await reader.post('/api/v1/invoices/batch', {})).status, 403);
  });

  test('two batches at once (and a per-batch Idempotency-Key replay) bill every visit exactly once', async () => {
    const c = await contact('Race');
    const jobs = [];
    for (let i = 0; i < 4; i++) jobs.push(await recurringJob(c, { complete: 3 }));
    jobs.push({ id: await oneOffJob(c), visits: [] });
    const before = await invoiceCount();
    const results = await Promise.all(Array.from({ length: 4 }, () => api.post('/api/v1/invoices/batch', { contact_ids: [c] })));
    for (const r of results) assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    const created = results.flatMap((r) => r.body.data as { id: number; job_id: number }[]);
    assert.deepEqual(created.map((i) => i.job_id).sort(), jobs.map((j) => j.id).sort(), 'one invoice per job over all batches');
    assert.equal(await invoiceCount(), before + jobs.length);
    for (const job of jobs.slice(0, 4)) {
      const inv = created.find((i) => i.job_id === job.id)!;
      assert.deepEqual(
        (await visitsOf(job.id)).slice(0, 3).map((v) => v.invoice_id),
        [inv.id, inv.id, inv.id],
      );
    }
    // Idempotency-Key: the replay answers the same bytes and bills nothing more.
    const again = await recurringJob(c, { complete: 2 });
    const key = { 'idempotency-key': `billing-${process.pid}` };
    const first = await api.post('/api/v1/invoices/batch', { job_ids: [again.id] }, key);
    const replay = await api.post('/api/v1/invoices/batch', { job_ids: [again.id] }, key);
    assert.equal(first.status, 201);
    assert.deepEqual([replay.status, replay.body], [201, first.body]);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(await invoiceCount(), before + jobs.length + 1);
  });

  test('two server processes on one database, batches racing: each visit billed once', {
    skip: backend !== 'postgres' && 'PostgreSQL: two processes writing at once',
  }, async () => {
    const c = await contact('Processes');
    const jobs = [];
    for (let i = 0; i < 6; i++) jobs.push(await recurringJob(c, { complete: 2 }));
    const servers = await Promise.all([startServer(t.url), startServer(t.url)]);
    try {
      const post = (base: string) =>
        fetch(`${base}/api/v1/invoices/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ contact_ids: [c] }),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const results = await Promise.all(servers.flatMap((s) => [post(s.base), post(s.base)]));
      const created = results.flatMap((r) => r.body.data as { job_id: number }[]);
      assert.deepEqual(created.map((i) => i.job_id).sort(), jobs.map((j) => j.id).sort());
      const billed = await t.db
        .selectFrom('events')
        .select(['id', 'invoice_id'])
        .where(
          'job_id',
          'in',
          jobs.map((j) => j.id),
        )
        .where('status', '=', 'completed')
        .execute();
      assert.equal(billed.length, 12);
      assert.ok(billed.every((v) => v.invoice_id !== null));
    } finally {
      for (const s of servers) s.child.kill();
    }
  });

  test('deleting or cancelling an invoice unbills its visits (and a one-off job): billable again', async () => {
    const c = await contact('Unbill');
    const job = await recurringJob(c, { complete: 2 });
    const fence = await oneOffJob(c);
    const first = (await api.post('/api/v1/invoices/batch', { contact_ids: [c] })).body.data as { id: number; job_id: number }[];
    const lawnInv = first.find((i) => i.job_id === job.id)!;
    const fenceInv = first.find((i) => i.job_id === fence)!;
    assert.equal((await api.delete(`/api/v1/invoices/${lawnInv.id}`)).status, 200);
    assert.equal((await api.put(`/api/v1/invoices/${fenceInv.id}/status`, { status: 'cancelled' })).status, 200);
    assert.deepEqual(
      (await visitsOf(job.id)).slice(0, 2).map((v) => v.invoice_id),
      [null, null],
    );
    const rows = (await work(`&contact_id=${c}`)).data;
    assert.deepEqual(
      rows.map((r: { job_id: number; visits: unknown[] }) => [r.job_id, r.visits.length]).sort(),
      [
        [job.id, 2],
        [fence, 0],
      ].sort(),
    );
    const second = (await api.post('/api/v1/invoices/batch', { contact_ids: [c] })).body.data as { id: number; job_id: number }[];
    assert.equal(second.length, 2);
    const cancelledLawn = second.find((i) => i.job_id === job.id)!;
    await api.put(`/api/v1/invoices/${cancelledLawn.id}`, { status: 'cancelled' });
    assert.deepEqual(
      (await visitsOf(job.id)).slice(0, 2).map((v) => v.invoice_id),
      [null, null],
      'PUT with status too',
    );
    await billEverything();
  });

  test('per_visit: completing a visit makes one draft for it, once; other invoicing makes none', async () => {
    const c = await contact('PerVisit');
    const job = await recurringJob(c, { complete: 0, invoicing: 'per_visit' });
    const manual = await recurringJob(c, { complete: 0 });
    const [v1, v2] = await visitsOf(job.id);
    const before = await invoiceCount();
    assert.equal((await api.put(`/api/v1/events/${v1.id}/status`, { status: 'completed' })).status, 200);
    const billedBy = (await api.get(`/api/v1/events/${v1.id}`)).body.data.invoice_id;
    assert.ok(billedBy);
    const inv = (await api.get(`/api/v1/invoices/${billedBy}`)).body.data;
    assert.deepEqual([inv.status, inv.job_id, inv.event_ids, inv.line_items.length], ['draft', job.id, [v1.id], ITEMS.length]);
    assert.equal(Math.round(inv.total * 100), d7(ITEMS, 1, { discount: 10, discount_unit: '%', tax_rate: 8.25 }));
    // Back and completed again, or completed through PUT: still one invoice.
    await api.put(`/api/v1/events/${v1.id}/status`, { status: 'scheduled' });
    await api.put(`/api/v1/events/${v1.id}/status`, { status: 'completed' });
    assert.equal(await invoiceCount(), before + 1);
    await api.put(`/api/v1/events/${v2.id}`, { status: 'completed' });
    assert.equal(await invoiceCount(), before + 2, 'PUT /events/:id completes too');
    await api.put(`/api/v1/events/${(await visitsOf(manual.id))[0].id}/status`, { status: 'completed' });
    assert.equal(await invoiceCount(), before + 2, 'a manual job waits for a batch');
    await billEverything();
  });

  test('per_visit completions while a batch runs: no deadlock, each visit billed once', async () => {
    // A visit completed again (an offline replay's PUT) on a per_visit job while a
    // batch bills: the completion locks the visit and wants the invoice counter; the
    // batch must not hold the counter while it waits for that visit (F289).
    await billEverything();
    const at = new Date().toISOString();
    const seed = async (last: string, n: number, invoicing: string, visits: number) => {
      const contacts = await t.db
        .insertInto('contacts')
        .values(Array.from({ length: n }, (_, i) => ({ workspace_id: ws.workspace.id, first_name: 'Pat', last_name: `${last}${i}`, type: 'client', created_at: at, updated_at: at })))
        .returning('id')
        .execute();
      const jobs = await t.db
        .insertInto('jobs')
        .values(
          contacts.map((c, i) => ({ workspace_id: ws.workspace.id, number: 900_000 + i + (invoicing === 'per_visit' ? 1000 : 0), name: `Seeded ${i}`, contact_id: c.id, type: 'recurring', status: 'in_progress', invoicing, line_items: JSON.stringify([{ id: crypto.randomUUID(), _type: 'lineItem', name: 'Mowing', quantity: 1, unitPrice: 10, taxable: true, optional: false }]), discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, total: 0, expenses: '[]', created_at: at, updated_at: at })),
        )
        .returning('id')
        .execute();
      return t.db
        .insertInto('events')
        .values(jobs.flatMap((j) => Array.from({ length: visits }, (_, k) => ({ workspace_id: ws.workspace.id, job_id: j.id, name: 'Lawn', type: 'appointment', status: 'completed', start_date: addDays(today, -7 * (k + 1)), end_date: addDays(today, -7 * (k + 1)), all_day: 1, multi_day: 0, created_at: at, updated_at: at }))))
        .returning('id')
        .execute();
    };
    const filler = await seed('Aaa', 150, 'manual', 2); // billed first: the batch is under way when it reaches the rest
    const perVisit = (await seed('Zzz', 20, 'per_visit', 1)).map((r) => r.id);
    const batch = api.post('/api/v1/invoices/batch', {});
    const completions = [];
    for (const id of perVisit) completions.push((await api.put(`/api/v1/events/${id}/status`, { status: 'completed' })).status);
    const done = await batch;
    assert.equal(done.status, 201, JSON.stringify(done.body).slice(0, 300));
    assert.deepEqual(completions, perVisit.map(() => 200));
    const visits = await t.db.selectFrom('events').select(['id', 'invoice_id']).where('id', 'in', [...filler.map((r) => r.id), ...perVisit]).execute();
    assert.ok(visits.every((v) => v.invoice_id !== null), 'every visit billed');
    const invoices = await t.db.selectFrom('invoices').select(['event_ids']).where('workspace_id', '=', ws.workspace.id).where('event_ids', 'is not', null).execute();
    const named = invoices.flatMap((i) => JSON.parse(String(i.event_ids)) as number[]).filter((id) => perVisit.includes(id));
    assert.equal(named.length, perVisit.length, 'each per_visit visit on one invoice');
    // E1 with the batch's numbers reserved at once: consecutive, and none taken twice.
    const numbers = (done.body.data as { number: number }[]).map((i) => i.number);
    assert.deepEqual(numbers, numbers.map((_, i) => (numbers[0] as number) + i));
    const all = await t.db.selectFrom('invoices').select('number').where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(new Set(all.map((r) => r.number)).size, all.length);
  });

  test('monthly: the first daily run of a month bills each monthly job through the last month, once; the CLI lists them', async () => {
    const c = await contact('Monthly');
    const job = await recurringJob(c, { weeksAgo: 10, complete: 10, invoicing: 'monthly' });
    const month = `${today.slice(0, 7)}-01`;
    const lastMonthEnd = addDays(month, -1);
    const due = job.visits.filter((v) => v.start_date <= lastMonthEnd);
    assert.ok(due.length > 0);
    const run = (date: string) => t.db.transaction().execute((trx) => runBillingDay(trx, { id: ws.workspace.id, timezone: null }, date));
    const made = await run(month);
    assert.equal(made.length, 1);
    const inv = (await api.get(`/api/v1/invoices/${made[0]}`)).body.data;
    assert.deepEqual([inv.status, inv.job_id, inv.event_ids], ['draft', job.id, due.map((v) => v.id)]);
    assert.deepEqual(await run(month), [], 'once a month');
    assert.deepEqual(await run(addDays(month, 1)), [], 'a later day of the month makes nothing');
    // The CLI, over the same database, on the first day of the month after the next visit's (completed ahead of time).
    const upcoming = (await visitsOf(job.id)).find((v) => v.start_date > lastMonthEnd)!;
    await api.put(`/api/v1/events/${upcoming.id}/status`, { status: 'completed' });
    const nextMonth = `${addDays(`${upcoming.start_date.slice(0, 7)}-01`, 32).slice(0, 7)}-01`;
    const cli = await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--date', nextMonth, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    const out = JSON.parse(cli.stdout);
    assert.equal(out.invoices_created.length, 1);
    const next = (await api.get(`/api/v1/invoices/${out.invoices_created[0]}`)).body.data;
    assert.deepEqual(next.event_ids, [upcoming.id]);
    const twice = JSON.parse((await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--date', nextMonth, '--json'])).stdout);
    assert.deepEqual(twice.invoices_created, []);
  });

  describe('deposits (E23)', () => {
    const quoteWith = async (deposit: number, deposit_unit: '%' | '$', extra: Record<string, unknown> = {}) => {
      const c = await contact('Deposit');
      const res = await api.post('/api/v1/quotes', {
        name: 'Patio',
        contact_id: c,
        line_items: [{ name: 'Patio', quantity: 1, unitPrice: 1234.57 }],
        tax_rate: 6.5,
        deposit,
        deposit_unit,
        ...extra,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data as { id: number; total: number; deposit_amount: number; deposit_paid: number };
    };
    const pay = (id: number, body: Record<string, unknown>) => api.post(`/api/v1/quotes/${id}/payments`, body);

    test('deposit_amount: % of the total rounded half away from zero, $ capped at the total', async () => {
      const q = await quoteWith(33.33, '%');
      const total = computeTotals([{ quantity: 1, unitPrice: 1234.57, taxable: true, optional: false }], {
        discount: 0,
        discount_unit: '%',
        tax_rate: 6.5,
      }).total;
      assert.equal(q.total * 100, total);
      assert.equal(Math.round(q.deposit_amount * 100), Math.round((total * 33.33) / 100));
      assert.equal((await quoteWith(5000, '$')).deposit_amount, q.total, 'capped');
      assert.equal((await api.get(`/api/v1/quotes/${q.id}`)).body.data.deposit_paid, 0);
    });

    test('approval waits for the deposit; payments follow E3 with their own errors; paid in full, the quote is accepted and its job made', async () => {
      const q = await quoteWith(25, '%');
      assert.deepEqual(
        [(await pay(q.id, { amount: 1 })).status, (await pay(q.id, { amount: 1 })).body.error],
        [409, 'Quote is not awaiting a deposit'],
        'a draft',
      );
      const approved = await api.put(`/api/v1/quotes/${q.id}/status`, { status: 'accepted' });
      assert.deepEqual([approved.body.data.status, approved.body.data.job], ['awaiting_deposit', null]);
      for (const amount of [0, -1, 1.005, 'x']) assert.equal((await pay(q.id, { amount })).status, 400, String(amount));
      const over = await pay(q.id, { amount: q.deposit_amount + 0.01 });
      assert.deepEqual([over.status, over.body], [400, { success: false, error: 'Payment exceeds the deposit due' }]);
      const first = await pay(q.id, { amount: 100, method: 'check', paid_on: '2026-01-05', reference: 'CHK 12' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(Object.keys(first.body.data).sort(), ['amount', 'created_at', 'created_by', 'id', 'method', 'note', 'paid_on', 'quote_id', 'reference']);
      assert.equal((await api.get(`/api/v1/quotes/${q.id}`)).body.data.status, 'awaiting_deposit');
      const rest = Math.round(q.deposit_amount * 100 - 10000) / 100;
      assert.equal((await pay(q.id, { amount: rest, method: 'card', paid_on: '2026-01-06' })).status, 201);
      const accepted = (await api.get(`/api/v1/quotes/${q.id}`)).body.data;
      assert.deepEqual([accepted.status, accepted.deposit_paid, typeof accepted.job?.id], ['accepted', q.deposit_amount, 'number']);
      const listed = (await api.get(`/api/v1/quotes/${q.id}/payments`)).body.data;
      assert.deepEqual(
        listed.map((p: { amount: number }) => p.amount),
        [100, rest],
      );
      assert.equal((await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'quote_accepted' && e.data.id === q.id).length, 1);
      assert.equal((await pay(q.id, { amount: 0.01 })).body.error, 'Payment exceeds the deposit due', 'nothing left due');

      // E6: the first invoice carries the deposit as payments; the balance is reduced; sending makes it partially paid.
      const inv = (await api.post(`/api/v1/jobs/${accepted.job.id}/create-invoice`)).body.data;
      assert.equal(inv.amount_paid, q.deposit_amount);
      assert.equal(Math.round(inv.balance * 100), Math.round(inv.total * 100) - Math.round(q.deposit_amount * 100));
      const payments = (await api.get(`/api/v1/invoices/${inv.id}/payments`)).body.data;
      assert.deepEqual(
        payments.map((p: { method: string; paid_on: string; note: string; amount: number }) => [p.method, p.paid_on, p.note, p.amount]),
        [
          ['check', '2026-01-05', 'Deposit', 100],
          ['card', '2026-01-06', 'Deposit', rest],
        ],
      );
      const second = (await api.post(`/api/v1/jobs/${accepted.job.id}/create-invoice`)).body.data;
      assert.equal(second.amount_paid, 0, 'carried once');
      // Deleting the draft gives the deposit back to the next invoice.
      assert.equal((await api.delete(`/api/v1/invoices/${inv.id}`)).status, 200);
      await api.delete(`/api/v1/invoices/${second.id}`);
      const third = (await api.post(`/api/v1/jobs/${accepted.job.id}/create-invoice`)).body.data;
      assert.equal(third.amount_paid, q.deposit_amount);
      const sent = (await api.put(`/api/v1/invoices/${third.id}/status`, { status: 'sent' })).body.data;
      assert.deepEqual([sent.status, sent.balance], ['partially_paid', third.balance]);
    });

    test("the hub's quote page shows the deposit, what was paid, what is due and the payment instructions", async () => {
      const q = await quoteWith(40, '%', { payment_instructions: 'Bank transfer to 12-3456' });
      await api.put(`/api/v1/quotes/${q.id}/status`, { status: 'accepted' });
      await pay(q.id, { amount: 100 });
      const contactId = (await api.get(`/api/v1/quotes/${q.id}`)).body.data.contact_id;
      const url = new URL((await api.post(`/api/v1/contacts/${contactId}/hub-link`)).body.data.url);
      const page = (await t.app.inject({ url: `${url.pathname}/quotes/${q.id}` })).body;
      const due = Math.round(q.deposit_amount * 100 - 10000) / 100;
      assert.ok(page.includes(`<dt>Deposit</dt><dd>40% ($${q.deposit_amount.toFixed(2)})</dd>`), page);
      assert.ok(page.includes('<dt>Deposit paid</dt><dd>$100.00</dd>'));
      assert.ok(page.includes(`<dt>Deposit due</dt><dd>$${due.toFixed(2)}</dd>`));
      assert.ok(page.includes('Bank transfer to 12-3456'));
      assert.ok(page.includes('Awaiting deposit'));
    });

    test("a recurring job from a deposit quote: the batch's first invoice carries the deposit", async () => {
      const q = await quoteWith(50, '$');
      await api.put(`/api/v1/quotes/${q.id}/status`, { status: 'accepted' });
      await pay(q.id, { amount: 50 });
      const jobId = (await api.get(`/api/v1/quotes/${q.id}`)).body.data.job.id;
      const c = (await api.get(`/api/v1/quotes/${q.id}`)).body.data.contact_id;
      await api.put(`/api/v1/jobs/${jobId}`, {
        type: 'recurring',
        line_items: ITEMS,
        status: 'scheduled',
        schedule: { rrule: 'FREQ=WEEKLY', starts_on: addDays(today, -14), all_day: true },
      });
      const [v] = await visitsOf(jobId);
      await api.put(`/api/v1/events/${v.id}/status`, { status: 'completed' });
      const res = await api.post('/api/v1/invoices/batch', { contact_ids: [c] });
      const inv = res.body.data[0];
      assert.deepEqual([inv.job_id, inv.amount_paid, inv.balance], [jobId, 50, Math.round(inv.total * 100 - 5000) / 100]);
    });
  });
});
