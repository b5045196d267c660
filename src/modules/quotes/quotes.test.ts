import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { insertUploadLink } from '../../../test/upload-fixtures.ts';

type Row = { id: number; [k: string]: unknown };

describe('quotes', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let contactId: number;

  /** The workspace's outbox rows: event name and payload. */
  const outbox = async (workspaceId = ws.workspace.id) => {
    const rows = await t.db.selectFrom('outbox').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
    return rows.map((r) => ({ event: r.event, ...(JSON.parse(r.payload) as { data: Row & Record<string, unknown>; link_path: string }) }));
  };
  const count = async (table: 'quotes' | 'jobs' | 'quote_status_changes') =>
    Number(
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', ws.workspace.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+1555' })).body.data.id;
  });
  after(() => t.close());

  test('create: 201 (D3) with every field, defaults, nulls and a number (D13)', async () => {
    const res = await api.post('/api/v1/quotes', {});
    assert.equal(res.status, 201);
    const q = res.body.data;
    assert.equal(q.number, 1);
    assert.equal(q.status, 'draft');
    assert.equal(q.workspace_id, ws.workspace.id);
    assert.deepEqual([q.discount, q.discount_unit, q.deposit, q.deposit_unit, q.tax_rate, q.tax_rate_id, q.total], [0, '%', 0, '%', 0, null, 0]);
    assert.deepEqual(q.line_items, []);
    for (const f of [
      'name',
      'contact_id',
      'property_id',
      'request_id',
      'salesperson_id',
      'template_id',
      'date',
      'expire_on',
      'message',
      'payment_instructions',
      'custom_fields',
      'contact',
      'property',
      'request',
      'salesperson',
      'job',
    ]) {
      assert.equal(q[f], null, f);
    }
    assert.deepEqual(q.status_changes, []);
    assert.match(q.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal((await api.post('/api/v1/quotes', {})).body.data.number, 2);
  });

  test('line items get id, _type and defaults; the total is computed by D7; deposit never changes it', async () => {
    const res = await api.post('/api/v1/quotes', {
      name: 'Spring cleanup',
      line_items: [
        { name: 'Mow', unitPrice: 30, quantity: 2 },
        { name: 'Mulch', unitPrice: 40, taxable: false },
        { name: 'Upsell', unitPrice: 999, optional: true },
      ],
      discount: 10,
      tax_rate: 8.875,
      deposit: 50,
    });
    assert.equal(res.status, 201);
    const q = res.body.data;
    assert.equal(q.line_items.length, 3);
    for (const li of q.line_items) {
      assert.match(li.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(li._type, 'lineItem');
    }
    assert.deepEqual(
      q.line_items.map((li: Row) => [li.quantity, li.taxable, li.optional, li.description]),
      [
        [2, true, false, null],
        [1, false, false, null],
        [1, true, true, null],
      ],
    );
    assert.equal(q.total, 94.79); // (100 - 10%) + 8.875% of the taxable 54 = 4.79
    assert.equal(q.deposit, 50);
    const supplied = await api.post('/api/v1/quotes', { line_items: [{ name: 'x', unitPrice: 10 }], total: 12.34 });
    assert.equal(supplied.body.data.total, 12.34, 'a supplied total is stored as given');
  });

  test('D7 on update: pricing inputs recompute; other fields keep a hand-set total', async () => {
    const { body } = await api.post('/api/v1/quotes', { line_items: [{ name: 'a', unitPrice: 100 }] });
    const id = body.data.id;
    assert.equal(body.data.total, 100);
    assert.equal((await api.put(`/api/v1/quotes/${id}`, { discount: 20, discount_unit: '$' })).body.data.total, 80);
    assert.equal((await api.put(`/api/v1/quotes/${id}`, { total: 75 })).body.data.total, 75);
    const renamed = await api.put(`/api/v1/quotes/${id}`, { name: 'Renamed', deposit: 10 });
    assert.equal(renamed.body.data.total, 75);
    assert.equal(renamed.body.data.name, 'Renamed');
    const kept = renamed.body.data.line_items[0].id;
    const again = await api.put(`/api/v1/quotes/${id}`, {
      line_items: [
        { ...renamed.body.data.line_items[0], quantity: 3 },
        { name: 'b', unitPrice: 5 },
      ],
    });
    assert.equal(again.body.data.total, 285);
    assert.equal(again.body.data.line_items[0].id, kept, 'an item sent back keeps its id');
  });

  test('D8: tax_rate_id copies the preset rate; an explicit tax_rate wins; unknown or foreign id is 400', async () => {
    const rate = (await api.post('/api/v1/tax-rates', { name: 'State', rate: 7.5 })).body.data;
    const q = await api.post('/api/v1/quotes', { tax_rate_id: rate.id, line_items: [{ name: 'a', unitPrice: 100 }] });
    assert.equal(q.body.data.tax_rate, 7.5);
    assert.equal(q.body.data.tax_rate_id, rate.id);
    assert.equal(q.body.data.total, 107.5);
    const explicit = await api.post('/api/v1/quotes', { tax_rate_id: rate.id, tax_rate: 5 });
    assert.equal(explicit.body.data.tax_rate, 5);
    const put = await api.put(`/api/v1/quotes/${explicit.body.data.id}`, { tax_rate_id: rate.id });
    assert.equal(put.body.data.tax_rate, 7.5);
    const other = await seedWorkspace(t.db);
    const foreign = (await client(t.app, other.token).post('/api/v1/tax-rates', { name: 'Theirs', rate: 1 })).body.data.id;
    for (const id of [foreign, 999999]) {
      const res = await api.post('/api/v1/quotes', { tax_rate_id: id });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['tax_rate_id']);
    }
  });

  test('single GET is expanded with contact, property, request, salesperson', async () => {
    const member = await seedUser(t.db, ws.workspace.id);
    const property = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '1 Main', city: 'Springfield' } })).body.data;
    const request = (await api.post('/api/v1/requests', { name: 'Leaky roof', contact_id: contactId })).body.data;
    const { body } = await api.post('/api/v1/quotes', {
      name: 'Roof',
      contact_id: contactId,
      property_id: property.id,
      request_id: request.id,
      salesperson_id: member.user_id,
      date: '2025-03-01',
      expire_on: '2025-04-01',
      message: 'Thanks',
      payment_instructions: 'Cash',
      custom_fields: { color: 'red' },
    });
    const res = await api.get(`/api/v1/quotes/${body.data.id}`);
    assert.equal(res.status, 200);
    const q = res.body.data;
    assert.deepEqual(q.contact, { id: contactId, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+1555' });
    assert.equal(q.property.id, property.id);
    assert.equal(q.property.address.street, '1 Main');
    assert.deepEqual(q.request, { id: request.id, number: request.number, name: 'Leaky roof', status: 'new' });
    assert.deepEqual(q.salesperson, { id: member.user_id, first_name: member.first_name, last_name: member.last_name });
    assert.deepEqual([q.date, q.expire_on, q.message, q.payment_instructions], ['2025-03-01', '2025-04-01', 'Thanks', 'Cash']);
    assert.deepEqual(q.custom_fields, { color: 'red' });
  });

  test('bad input: D4 400 Invalid request with details, nothing written', async () => {
    const other = await seedWorkspace(t.db);
    const otherApi = client(t.app, other.token);
    const foreignContact = (await otherApi.post('/api/v1/contacts', { first_name: 'X', last_name: 'Y' })).body.data.id;
    const foreignTemplate = (await otherApi.post('/api/v1/quote-templates', { template_name: 'T' })).body.data.id;
    const quotes = await count('quotes');
    const events = (await outbox()).length;
    const cases: [unknown, (string | number)[]][] = [
      [{ status: 'won' }, ['status']],
      [{ line_items: [{ name: 'a', unitPrice: 1, quantity: -1 }] }, ['line_items', 0, 'quantity']],
      [{ line_items: [{ name: 'a', unitPrice: -5 }] }, ['line_items', 0, 'unitPrice']],
      [{ line_items: [{ name: 'a' }] }, ['line_items', 0, 'unitPrice']],
      [{ line_items: [{ name: 'a', unitPrice: 1, quantity: 1e7 }] }, ['line_items', 0, 'quantity']],
      [{ line_items: Array.from({ length: 201 }, () => ({ name: 'a', unitPrice: 1 })) }, ['line_items']],
      [{ discount_unit: '#' }, ['discount_unit']],
      [{ discount: -1 }, ['discount']],
      [{ discount: 150 }, ['discount']],
      [{ tax_rate: 101 }, ['tax_rate']],
      [{ date: '2025-13-01' }, ['date']],
      [{ date: '2025-02-30' }, ['date']],
      [{ expire_on: '01/02/2025' }, ['expire_on']],
      [{ name: 'x'.repeat(256) }, ['name']],
      [{ contact_id: foreignContact }, ['contact_id']],
      [{ template_id: foreignTemplate }, ['template_id']],
      [{ salesperson_id: other.owner.user_id }, ['salesperson_id']],
      [{ total: 'lots' }, ['total']],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/api/v1/quotes', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body).slice(0, 80));
    }
    const { body } = await api.post('/api/v1/quotes', { name: 'Keep' });
    const bad = await api.put(`/api/v1/quotes/${body.data.id}`, { name: 'Changed', discount: 101 });
    assert.equal(bad.status, 400);
    assert.equal((await api.get(`/api/v1/quotes/${body.data.id}`)).body.data.name, 'Keep');
    assert.equal(await count('quotes'), quotes + 1);
    assert.equal((await outbox()).length, events + 1);
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
        ['Alpha deck', 'draft', null],
        ['Beta fence', 'awaiting_response', contact],
        ['Gamma roof', 'declined', contact],
        ['Delta yard', 'archived', null],
      ] as const) {
        ids.push(
          (await mine.post('/api/v1/quotes', { name, status, contact_id: c, date: '2025-01-02', line_items: [{ name: 'x', unitPrice: 10 }] })).body.data.id,
        );
      }
    });

    test('items carry exactly the SPEC fields, newest first (D1)', async () => {
      const res = await mine.get('/api/v1/quotes');
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.data.map((q: Row) => q.id),
        [...ids].reverse(),
      );
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['contact_id', 'created_at', 'date', 'expire_on', 'id', 'name', 'number', 'status', 'total']);
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    });

    test('status and exclude_statuses take comma-separated lists; contact_id; search; sort', async () => {
      const get = async (q: string) => (await mine.get(`/api/v1/quotes?${q}`)).body.data.map((x: Row) => x.id).sort();
      assert.deepEqual(await get('status=draft,declined'), [ids[0], ids[2]].sort());
      assert.deepEqual(await get('exclude_statuses=archived,declined'), [ids[0], ids[1]].sort());
      assert.deepEqual(await get(`contact_id=${contact}`), [ids[1], ids[2]].sort());
      assert.deepEqual(await get('search=fence'), [ids[1]]);
      assert.deepEqual(await get('search=3'), [ids[2]], 'search covers the number');
      const byName = await mine.get('/api/v1/quotes?sort_by=name&sort_direction=asc');
      assert.deepEqual(
        byName.body.data.map((q: Row) => q.name),
        ['Alpha deck', 'Beta fence', 'Delta yard', 'Gamma roof'],
      );
    });

    test('D4: a bad status in a filter is 400 with details', async () => {
      for (const q of ['status=won', 'exclude_statuses=draft,nope', 'sort_by=secret', 'contact_id=x']) {
        const res = await mine.get(`/api/v1/quotes?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.error, 'Invalid request');
        assert.ok(res.body.details.length);
      }
    });
  });

  describe('status endpoint', () => {
    test('sets any allowed status; the comment is kept with the change and the acting user', async () => {
      const { body } = await api.post('/api/v1/quotes', { name: 'S' });
      const res = await api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'awaiting_response', comment: 'Sent by mail' });
      assert.equal(res.status, 200);
      const q = res.body.data;
      assert.deepEqual([q.id, q.status, q.number, q.name, q.workspace_id], [body.data.id, 'awaiting_response', body.data.number, 'S', ws.workspace.id]);
      assert.equal(q.status_changes.length, 1);
      assert.equal(q.status_changes[0].comment, 'Sent by mail');
      assert.equal(q.status_changes[0].user_id, ws.owner.user_id);
      const row = await t.db.selectFrom('quote_status_changes').selectAll().where('quote_id', '=', body.data.id).executeTakeFirstOrThrow();
      assert.deepEqual([row.status, row.comment, row.user_id], ['awaiting_response', 'Sent by mail', ws.owner.user_id]);
      const plain = await api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'expired' });
      assert.equal(plain.body.data.status_changes[1].comment, null);
    });

    test('status is required and must be a quote status; unknown quote is 404; scope quotes:write', async () => {
      const { body } = await api.post('/api/v1/quotes', {});
      for (const b of [{}, { status: 'won' }, { status: 'accepted', comment: 'x'.repeat(5001) }]) {
        const res = await api.put(`/api/v1/quotes/${body.data.id}/status`, b);
        assert.equal(res.status, 400, JSON.stringify(b).slice(0, 50));
        assert.equal(res.body.error, 'Invalid request');
      }
      assert.equal((await api.get(`/api/v1/quotes/${body.data.id}`)).body.data.status, 'draft');
      assert.deepEqual((await api.put('/api/v1/quotes/999999/status', { status: 'draft' })).body, { success: false, error: 'Quote not found' });
      assert.equal((await api.put('/api/v1/quotes/abc/status', { status: 'draft' })).status, 404);
      const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:read']));
      const denied = await reader.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'declined' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error, 'Insufficient permissions. Required scope: quotes:write');
    });
  });

  describe('D14 acceptance', () => {
    test('the status endpoint creates exactly one draft job copying the quote; quote_accepted and new_job are emitted', async () => {
      const member = await seedUser(t.db, ws.workspace.id);
      const { body } = await api.post('/api/v1/quotes', {
        name: 'Patio',
        contact_id: contactId,
        salesperson_id: member.user_id,
        line_items: [{ name: 'Pavers', unitPrice: 12.5, quantity: 8 }],
        discount: 5,
        discount_unit: '$',
        deposit_unit: '$', // no deposit: with one, E23 makes the approval wait for it (src/modules/billing/billing.test.ts)
        tax_rate: 10,
        message: 'not copied',
      });
      const quote = body.data;
      const before = (await outbox()).length;
      const res = await api.put(`/api/v1/quotes/${quote.id}/status`, { status: 'accepted' });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.status, 'accepted');
      const jobs = await t.db.selectFrom('jobs').selectAll().where('quote_id', '=', quote.id).execute();
      assert.equal(jobs.length, 1);
      assert.deepEqual(res.body.data.job, { id: jobs[0].id, number: jobs[0].number, name: 'Patio', status: 'draft' });
      const job = (await api.get(`/api/v1/jobs/${jobs[0].id}`)).body.data;
      assert.equal(job.status, 'draft');
      assert.equal(job.quote_id, quote.id);
      for (const f of [
        'name',
        'contact_id',
        'property_id',
        'request_id',
        'salesperson_id',
        'discount',
        'discount_unit',
        'deposit',
        'deposit_unit',
        'tax_rate',
        'tax_rate_id',
        'total',
      ]) {
        assert.deepEqual(job[f], quote[f], f);
      }
      assert.equal(job.total, 104.5);
      assert.deepEqual(
        job.line_items.map(({ id: _, ...li }: Row) => li),
        quote.line_items.map(({ id: _, ...li }: Row) => li),
      );
      assert.notEqual(job.line_items[0].id, quote.line_items[0].id, 'the job has items of its own');
      const events = (await outbox()).slice(before);
      // E14: the status change is also a write: quote_updated, once, with the same data.
      assert.deepEqual(events.map((e) => e.event).sort(), ['new_job', 'quote_accepted', 'quote_updated']);
      assert.deepEqual(events.find((e) => e.event === 'quote_updated')!.data, res.body.data);
      const accepted = events.find((e) => e.event === 'quote_accepted')!;
      assert.deepEqual(accepted.data, res.body.data, 'data is the quote as its GET returns it');
      assert.deepEqual(events.find((e) => e.event === 'new_job')!.data, job);

      // Accepting again, or declined then accepted again: no second job, no second event.
      await api.put(`/api/v1/quotes/${quote.id}/status`, { status: 'accepted' });
      await api.put(`/api/v1/quotes/${quote.id}/status`, { status: 'declined' });
      await api.put(`/api/v1/quotes/${quote.id}`, { status: 'accepted' });
      assert.equal((await t.db.selectFrom('jobs').select('id').where('quote_id', '=', quote.id).execute()).length, 1);
      assert.deepEqual((await outbox()).slice(before).filter((e) => e.event === 'new_job').length, 1);
      assert.equal((await outbox()).slice(before).filter((e) => e.event === 'quote_accepted').length, 2, 'it entered accepted twice');
    });

    test('PUT with status accepted creates the job too; so does a create as accepted', async () => {
      const { body } = await api.post('/api/v1/quotes', { name: 'Via PUT' });
      const res = await api.put(`/api/v1/quotes/${body.data.id}`, { status: 'accepted' });
      assert.equal(res.body.data.job.name, 'Via PUT');
      assert.equal(res.body.data.status_changes.length, 1, 'a status change by PUT is kept too');
      const created = await api.post('/api/v1/quotes', { name: 'Born accepted', status: 'accepted' });
      assert.equal(created.body.data.job.status, 'draft');
    });

    test('two concurrent accepts create exactly one job and one quote_accepted', async () => {
      for (let round = 0; round < 3; round++) {
        const { body } = await api.post('/api/v1/quotes', { name: `Race ${round}`, line_items: [{ name: 'a', unitPrice: 1 }] });
        const before = (await outbox()).length;
        const results = await Promise.all([
          api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'accepted' }),
          api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'accepted' }),
          api.put(`/api/v1/quotes/${body.data.id}`, { status: 'accepted' }),
        ]);
        assert.deepEqual(
          results.map((r) => r.status),
          [200, 200, 200],
        );
        assert.equal((await t.db.selectFrom('jobs').select('id').where('quote_id', '=', body.data.id).execute()).length, 1);
        const events = (await outbox())
          .slice(before)
          .map((e) => e.event)
          .filter((e) => e !== 'quote_updated') // E14: one per write, tested in test/sync.test.ts
          .sort();
        assert.deepEqual(events, ['new_job', 'quote_accepted']);
      }
    });

    test('a failure halfway leaves neither a job nor an accepted quote, and no events', async () => {
      const { body } = await api.post('/api/v1/quotes', { name: 'Doomed' });
      // Make the job's insert fail: the next job number is already taken.
      const counter = await t.db
        .selectFrom('counters')
        .select('value')
        .where('workspace_id', '=', ws.workspace.id)
        .where('kind', '=', 'jobs')
        .executeTakeFirst();
      const next = (counter?.value ?? 0) + 1;
      const at = new Date().toISOString();
      const blocker = await t.db
        .insertInto('jobs')
        .values({
          workspace_id: ws.workspace.id,
          number: next,
          type: 'one-off',
          expenses: '[]',
          line_items: '[]',
          discount: 0,
          discount_unit: '%',
          deposit: 0,
          deposit_unit: '%',
          tax_rate: 0,
          total: 0,
          status: 'draft',
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const before = (await outbox()).length;
      const changes = await count('quote_status_changes');
      const res = await api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'accepted', comment: 'yes' });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { success: false, error: 'Internal server error' });
      const quote = (await api.get(`/api/v1/quotes/${body.data.id}`)).body.data;
      assert.equal(quote.status, 'draft');
      assert.equal(quote.job, null);
      assert.equal((await t.db.selectFrom('jobs').select('id').where('quote_id', '=', body.data.id).execute()).length, 0);
      assert.equal((await outbox()).length, before);
      assert.equal(await count('quote_status_changes'), changes);
      // Once the obstacle is gone, the same accept works (and the counter did not move).
      await t.db.deleteFrom('jobs').where('id', '=', blocker.id).execute();
      const ok = await api.put(`/api/v1/quotes/${body.data.id}/status`, { status: 'accepted' });
      assert.equal(ok.body.data.job.number, next);
    });
  });

  test('D16: a committed create leaves exactly one new_quote row with the GET shape; a failed one none', async () => {
    const before = await outbox();
    const res = await api.post('/api/v1/quotes', { name: 'Hooked', contact_id: contactId });
    const after = (await outbox()).slice(before.length);
    assert.equal(after.length, 1);
    assert.equal(after[0].event, 'new_quote');
    assert.deepEqual(after[0].data, (await api.get(`/api/v1/quotes/${res.body.data.id}`)).body.data);
    assert.equal(after[0].link_path, `/api/v1/quotes/${res.body.data.id}`);
    await api.post('/api/v1/quotes', { contact_id: 999999 });
    assert.equal((await outbox()).length, before.length + 1);
  });

  test('D12: delete is permanent; its job stays with quote_id null; a contact with a quote cannot be deleted (409)', async () => {
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Del', last_name: 'Quote' })).body.data.id;
    const { body } = await api.post('/api/v1/quotes', { contact_id: contact, status: 'accepted' });
    const jobId = body.data.job.id;
    const refused = await api.delete(`/api/v1/contacts/${contact}`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { success: false, error: 'Contact has related records' });
    assert.deepEqual((await api.delete(`/api/v1/quotes/${body.data.id}`)).body, { success: true, data: { deleted: true } });
    assert.deepEqual((await api.get(`/api/v1/quotes/${body.data.id}`)).body, { success: false, error: 'Quote not found' });
    assert.equal((await api.delete(`/api/v1/quotes/${body.data.id}`)).status, 404);
    assert.equal((await api.get(`/api/v1/jobs/${jobId}`)).body.data.quote_id, null);
  });

  test('D12: deleting a request, quote, job or invoice takes its upload links and comments with it', async () => {
    for (const [path, type] of [
      ['requests', 'request'],
      ['quotes', 'quote'],
      ['jobs', 'job'],
      ['invoices', 'invoice'],
    ] as const) {
      const id = (await api.post(`/api/v1/${path}`, {})).body.data.id;
      await insertUploadLink(t.db, ws.workspace.id, type, id);
      const comment = await api.post('/api/v1/comments', { module_type: type, module_id: id, comment: 'note' });
      assert.equal(comment.status, 201, path);
      assert.equal((await api.delete(`/api/v1/${path}/${id}`)).status, 200, path);
      const links = await t.db.selectFrom('upload_links').select('id').where('module_type', '=', type).where('module_id', '=', id).execute();
      const comments = await t.db.selectFrom('comments').select('id').where('related_type', '=', type).where('related_id', '=', id).execute();
      assert.deepEqual([links.length, comments.length], [0, 0], path);
    }
  });

  test("another workspace's quote is 404 on every route; non-integer ids too (D5)", async () => {
    const { body } = await api.post('/api/v1/quotes', { name: 'Mine' });
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    const id = body.data.id;
    for (const res of [
      await other.get(`/api/v1/quotes/${id}`),
      await other.put(`/api/v1/quotes/${id}`, { name: 'Theirs' }),
      await other.put(`/api/v1/quotes/${id}/status`, { status: 'accepted' }),
      await other.delete(`/api/v1/quotes/${id}`),
      await api.get('/api/v1/quotes/1.5'),
    ]) {
      assert.deepEqual(res.body, { success: false, error: 'Quote not found' });
    }
    assert.equal((await other.get('/api/v1/quotes')).body.data.length, 0);
    assert.equal((await api.get(`/api/v1/quotes/${id}`)).body.data.status, 'draft');
  });
});
