import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp, outboxEvents } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('quote templates', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let rate: Row;

  const outbox = () => outboxEvents(t.db, ws.workspace.id);

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    rate = (await api.post('/api/v1/tax-rates', { name: 'State', rate: 5 })).body.data;
  });
  after(() => t.close());

  const owner = () => ({ id: ws.owner.user_id, first_name: 'Olive', last_name: 'Owner' });

  test('create: 201 with defaults; tax_rate_obj and created_by expanded on get and list; D7 and D8 apply', async () => {
    const res = await api.post('/api/v1/quote-templates', {
      template_name: 'Spring package',
      name: 'Spring cleanup',
      description: 'internal',
      message: 'Hello',
      payment_instructions: 'Net 30',
      line_items: [
        { name: 'Rake', unitPrice: 40 },
        { name: 'Edge', unitPrice: 20, taxable: false },
      ],
      tax_rate_id: rate.id,
      deposit: 25,
    });
    assert.equal(res.status, 201);
    const tpl = res.body.data;
    assert.equal(tpl.tax_rate, 5, 'D8 copies the preset rate');
    assert.equal(tpl.total, 62);
    assert.deepEqual([tpl.discount, tpl.discount_unit, tpl.deposit_unit], [0, '%', '%']);
    assert.deepEqual(tpl.tax_rate_obj, { id: rate.id, name: 'State', rate: 5 });
    assert.deepEqual(tpl.created_by, owner());
    assert.equal(tpl.line_items[0]._type, 'lineItem');
    assert.deepEqual((await api.get(`/api/v1/quote-templates/${tpl.id}`)).body.data, tpl);
    const listed = (await api.get('/api/v1/quote-templates')).body.data.find((x: Row) => x.id === tpl.id);
    assert.deepEqual(listed, tpl);
    const bare = (await api.post('/api/v1/quote-templates', { template_name: 'Bare' })).body.data;
    assert.deepEqual([bare.name, bare.tax_rate_obj, bare.total, bare.line_items], [null, null, 0, []]);
  });

  test('bad input: 400 Invalid request with details', async () => {
    const foreignRate = (await client(t.app, (await seedWorkspace(t.db)).token).post('/api/v1/tax-rates', { name: 'X', rate: 1 })).body.data.id;
    for (const [body, path] of [
      [{}, ['template_name']],
      [{ template_name: 'x'.repeat(256) }, ['template_name']],
      [{ template_name: 'a', tax_rate_id: foreignRate }, ['tax_rate_id']],
      [{ template_name: 'a', line_items: [{ name: 'x', unitPrice: 1, quantity: -1 }] }, ['line_items', 0, 'quantity']],
      [{ template_name: 'a', deposit_unit: 'pct' }, ['deposit_unit']],
    ] as [unknown, (string | number)[]][]) {
      const res = await api.post('/api/v1/quote-templates', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path);
    }
  });

  describe('create-quote', () => {
    test('201: a draft quote copying the template, with template_id, a number and new_quote', async () => {
      const tpl = (
        await api.post('/api/v1/quote-templates', {
          template_name: 'Fence',
          name: 'Fence repair',
          message: 'We fix fences',
          payment_instructions: 'Card',
          line_items: [{ name: 'Post', unitPrice: 25, quantity: 4, description: 'cedar' }],
          discount: 10,
          discount_unit: '$',
          deposit: 30,
          tax_rate_id: rate.id,
        })
      ).body.data;
      const before = (await outbox()).length;
      const res = await api.post(`/api/v1/quote-templates/${tpl.id}/create-quote`);
      assert.equal(res.status, 201);
      const q = res.body.data;
      assert.equal(q.template_id, tpl.id);
      assert.equal(q.status, 'draft');
      assert.equal(typeof q.number, 'number');
      assert.deepEqual(
        [q.name, q.message, q.payment_instructions, q.discount, q.discount_unit, q.deposit, q.deposit_unit, q.tax_rate, q.tax_rate_id, q.total],
        [tpl.name, tpl.message, tpl.payment_instructions, 10, '$', 30, '%', 5, rate.id, tpl.total],
      );
      assert.equal(q.total, 94.5);
      assert.equal(q.contact_id, null);
      assert.deepEqual(
        q.line_items.map(({ id: _, ...li }: Row) => li),
        tpl.line_items.map(({ id: _, ...li }: Row) => li),
      );
      assert.notEqual(q.line_items[0].id, tpl.line_items[0].id);
      const events = (await outbox()).slice(before);
      assert.deepEqual(
        events.map((e) => e.event),
        ['new_quote'],
      );
      assert.deepEqual(events[0].data, q);
      assert.equal((await api.post(`/api/v1/quote-templates/${tpl.id}/create-quote`)).body.data.number, q.number + 1);

      // Later template edits and its deletion do not touch the quote.
      await api.put(`/api/v1/quote-templates/${tpl.id}`, { name: 'Changed', line_items: [], message: 'new' });
      await api.delete(`/api/v1/quote-templates/${tpl.id}`);
      const after = (await api.get(`/api/v1/quotes/${q.id}`)).body.data;
      assert.deepEqual(
        [after.name, after.message, after.line_items.length, after.template_id, after.total],
        ['Fence repair', 'We fix fences', 1, tpl.id, 94.5],
      );
    });

    test("another workspace's or an unknown template is 404 Quote template not found; nothing written", async () => {
      const theirs = (await client(t.app, (await seedWorkspace(t.db)).token).post('/api/v1/quote-templates', { template_name: 'Theirs' })).body.data.id;
      const quotes = (await t.db.selectFrom('quotes').select('id').where('workspace_id', '=', ws.workspace.id).execute()).length;
      for (const id of [theirs, 999999, 'abc']) {
        const res = await api.post(`/api/v1/quote-templates/${id}/create-quote`);
        assert.equal(res.status, 404, String(id));
        assert.deepEqual(res.body, { success: false, error: 'Quote template not found' });
      }
      assert.equal((await t.db.selectFrom('quotes').select('id').where('workspace_id', '=', ws.workspace.id).execute()).length, quotes);
    });

    test('needs quotes:write, not quote-templates:write', async () => {
      const tpl = (await api.post('/api/v1/quote-templates', { template_name: 'Scoped' })).body.data;
      const templatesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quote-templates:read', 'quote-templates:write']));
      const denied = await templatesOnly.post(`/api/v1/quote-templates/${tpl.id}/create-quote`);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error, 'Insufficient permissions. Required scope: quotes:write');
      const quotesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:write']));
      assert.equal((await quotesOnly.post(`/api/v1/quote-templates/${tpl.id}/create-quote`)).status, 201);
      assert.equal((await quotesOnly.get(`/api/v1/quote-templates/${tpl.id}`)).status, 403);
    });
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    before(async () => {
      mine = client(t.app, (await seedWorkspace(t.db)).token);
      ids = [];
      let lastUpdate = '';
      for (const [name, price] of [
        ['Bravo', 30],
        ['Alpha', 10],
        ['Charlie', 20],
      ] as const) {
        const created = (await mine.post('/api/v1/quote-templates', { template_name: name, line_items: [{ name: 'x', unitPrice: price }] })).body.data;
        ids.push(created.id);
        lastUpdate = created.updated_at;
      }
      // Timestamps are to the millisecond: the edit must come after the last create's, not tie with it (ties sort by id).
      while (Date.now() <= Date.parse(lastUpdate)) await new Promise((resolve) => setTimeout(resolve, 1));
      await mine.put(`/api/v1/quote-templates/${ids[0]}`, { description: 'edited' });
    });

    test('sort_by id, template_name, total, created_at, modified_at; search covers the template name', async () => {
      const get = async (q: string) => (await mine.get(`/api/v1/quote-templates?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get('sort_by=template_name&sort_direction=asc'), [ids[1], ids[0], ids[2]]);
      assert.deepEqual(await get('sort_by=total'), [ids[0], ids[2], ids[1]]);
      assert.deepEqual(await get('sort_by=id&sort_direction=asc'), ids);
      assert.deepEqual((await get('sort_by=modified_at'))[0], ids[0]);
      assert.deepEqual(await get('search=char'), [ids[2]]);
      assert.equal((await mine.get('/api/v1/quote-templates?sort_by=name')).status, 400);
      const first = (await mine.get('/api/v1/quote-templates')).body.data[0];
      assert.ok('tax_rate_obj' in first && 'created_by' in first);
    });
  });
});
