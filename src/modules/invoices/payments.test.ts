import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { buildTestApp, type Client, client, keyFor, outboxEvents, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// EXTENSIONS E3 (payments) and E4 (balance and status follow money).
describe('invoice payments', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  const invoice = async (unitPrice: number, status = 'sent', c = api) =>
    (await c.post('/api/v1/invoices', { name: 'Inv', status, line_items: [{ name: 'Work', unitPrice, quantity: 1 }] })).body.data as { id: number; total: number };
  const pay = (id: number, body: Record<string, unknown>, c = api) => c.post(`/api/v1/invoices/${id}/payments`, body);
  const get = async (id: number) => (await api.get(`/api/v1/invoices/${id}`)).body.data;

  test('POST answers 201 with the payment; GET lists oldest paid_on first; amount_paid and balance on the invoice and list', async () => {
    const inv = await invoice(100.1);
    const res = await pay(inv.id, { amount: 0.1, method: 'card', paid_on: '2025-03-02', reference: 'R-1', note: 'first' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const p = res.body.data;
    assert.deepEqual(Object.keys(p).sort(), ['amount', 'created_at', 'created_by', 'id', 'invoice_id', 'method', 'note', 'paid_on', 'reference']);
    assert.deepEqual([p.invoice_id, p.amount, p.method, p.paid_on, p.reference, p.note], [inv.id, 0.1, 'card', '2025-03-02', 'R-1', 'first']);
    assert.deepEqual(p.created_by, { id: ws.owner.user_id, first_name: ws.owner.first_name, last_name: ws.owner.last_name });
    const second = (await pay(inv.id, { amount: 0.2, paid_on: '2025-03-01' })).body.data;
    assert.equal(second.method, 'other', 'default method');
    const third = (await pay(inv.id, { amount: 50 })).body.data;
    assert.match(third.paid_on, /^\d{4}-\d{2}-\d{2}$/, 'default: today');
    const list = await api.get(`/api/v1/invoices/${inv.id}/payments`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((x: { id: number }) => x.id), [second.id, p.id, third.id]);
    const got = await get(inv.id);
    assert.deepEqual([got.amount_paid, got.balance, got.status], [50.3, 49.8, 'partially_paid'], 'cents, not float sums (0.1 + 0.2)');
    const item = (await api.get('/api/v1/invoices?per_page=100')).body.data.find((i: { id: number }) => i.id === inv.id);
    assert.deepEqual([item.amount_paid, item.balance], [50.3, 49.8]);
  });

  test('bad amounts are 400 with details and change nothing; over the balance is 400 Payment exceeds the invoice balance', async () => {
    const inv = await invoice(10);
    for (const amount of [0, -1, 1.005, 0.001, 'abc', 'NaN', '5', null, 1e13]) {
      const res = await pay(inv.id, { amount });
      assert.equal(res.status, 400, String(amount));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['amount'], String(amount));
    }
    for (const body of [{ amount: 1, method: 'barter' }, { amount: 1, paid_on: '2025-13-01' }, { amount: 1, reference: 'x'.repeat(256) }, { amount: 1, note: 'x'.repeat(2001) }]) {
      const res = await pay(inv.id, body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 50));
    }
    const over = await pay(inv.id, { amount: 10.01 });
    assert.equal(over.status, 400);
    assert.deepEqual(over.body, { success: false, error: 'Payment exceeds the invoice balance' });
    assert.equal((await pay(inv.id, { amount: 10 })).status, 201, 'exactly the balance');
    assert.equal((await pay(inv.id, { amount: 0.01 })).body.error, 'Payment exceeds the invoice balance', 'paid in full');
    assert.equal((await api.get(`/api/v1/invoices/${inv.id}/payments`)).body.data.length, 1);
  });

  test('draft and cancelled invoices are not open for payment (409)', async () => {
    for (const status of ['draft', 'cancelled']) {
      const inv = await invoice(10, status);
      const res = await pay(inv.id, { amount: 1 });
      assert.equal(res.status, 409);
      assert.deepEqual(res.body, { success: false, error: 'Invoice is not open for payment' });
    }
  });

  test('E4: status follows money; invoice_paid once per entry into paid; no payments left is sent again', async () => {
    const inv = await invoice(30, 'overdue');
    const events = async () => (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.data.id === inv.id && e.event === 'invoice_paid');
    const a = (await pay(inv.id, { amount: 10 })).body.data;
    assert.equal((await get(inv.id)).status, 'partially_paid');
    const b = (await pay(inv.id, { amount: 20 })).body.data;
    assert.deepEqual([(await get(inv.id)).status, (await events()).length], ['paid', 1]);
    assert.equal((await events())[0].data.balance, 0);
    const voided = await api.delete(`/api/v1/invoices/${inv.id}/payments/${b.id}`);
    assert.deepEqual([voided.status, voided.body], [200, { success: true, data: { deleted: true } }]);
    assert.deepEqual([(await get(inv.id)).status, (await get(inv.id)).balance], ['partially_paid', 20]);
    await pay(inv.id, { amount: 20 });
    assert.deepEqual([(await get(inv.id)).status, (await events()).length], ['paid', 2], 'a second entry, a second event');
    await api.delete(`/api/v1/invoices/${inv.id}/payments/${a.id}`);
    const rest = (await api.get(`/api/v1/invoices/${inv.id}/payments`)).body.data;
    await api.delete(`/api/v1/invoices/${inv.id}/payments/${rest[0].id}`);
    assert.deepEqual([(await get(inv.id)).status, (await get(inv.id)).amount_paid], ['sent', 0]);
  });

  test('E4: an invoice with payments refuses DELETE and money changes with 409 Invoice has payments', async () => {
    const inv = await invoice(40);
    await pay(inv.id, { amount: 5 });
    for (const body of [{ line_items: [] }, { discount: 1 }, { discount_unit: '%' }, { tax_rate: 5 }, { tax_rate_id: null }, { total: 1 }]) {
      const res = await api.put(`/api/v1/invoices/${inv.id}`, body);
      assert.equal(res.status, 409, JSON.stringify(body));
      assert.deepEqual(res.body, { success: false, error: 'Invoice has payments' });
    }
    const del = await api.delete(`/api/v1/invoices/${inv.id}`);
    assert.deepEqual([del.status, del.body.error], [409, 'Invoice has payments']);
    assert.equal((await api.put(`/api/v1/invoices/${inv.id}`, { name: 'Renamed' })).status, 200, 'other fields still change');
    assert.equal((await get(inv.id)).total, 40);
    const p = (await api.get(`/api/v1/invoices/${inv.id}/payments`)).body.data[0];
    await api.delete(`/api/v1/invoices/${inv.id}/payments/${p.id}`);
    assert.equal((await api.delete(`/api/v1/invoices/${inv.id}`)).status, 200, 'without payments it can go');
  });

  test("voiding another invoice's or another workspace's payment is 404 Payment not found; missing invoices 404", async () => {
    const a = await invoice(10);
    const b = await invoice(10);
    const pb = (await pay(b.id, { amount: 1 })).body.data;
    const other = await seedWorkspace(t.db);
    const oc = client(t.app, other.token);
    const foreignInv = await invoice(10, 'sent', oc);
    const foreignPay = (await pay(foreignInv.id, { amount: 1 }, oc)).body.data;
    for (const [inv, pid] of [[a.id, pb.id], [a.id, foreignPay.id], [a.id, 2_000_000_000]]) {
      const res = await api.delete(`/api/v1/invoices/${inv}/payments/${pid}`);
      assert.deepEqual([res.status, res.body], [404, { success: false, error: 'Payment not found' }]);
    }
    assert.equal((await api.delete(`/api/v1/invoices/${foreignInv.id}/payments/${foreignPay.id}`)).body.error, 'Invoice not found');
    assert.equal((await api.get(`/api/v1/invoices/${foreignInv.id}/payments`)).body.error, 'Invoice not found');
    assert.equal((await pay(foreignInv.id, { amount: 1 })).body.error, 'Invoice not found');
    assert.equal((await api.delete(`/api/v1/invoices/${a.id}/payments/abc`)).body.error, 'Payment not found');
    assert.equal((await get(b.id)).amount_paid, 1);
    assert.equal((await (await oc.get(`/api/v1/invoices/${foreignInv.id}`)).body.data).amount_paid, 1);
  });

  test('two payments racing for the last cent: exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const inv = await invoice(10);
      await pay(inv.id, { amount: 9.99 });
      const results = await Promise.all([pay(inv.id, { amount: 0.01 }), pay(inv.id, { amount: 0.01 })]);
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 400]);
      const got = await get(inv.id);
      assert.deepEqual([got.amount_paid, got.balance, got.status], [10, 0, 'paid']);
    }
  });

  test('round trips: a payment is begin, the locked read, insert, update, its events in one INSERT (invoice_updated and payment_received, E14), commit; the list is two reads', async () => {
    const inv = await invoice(10);
    const own = (qs: string[]) => qs.filter((q) => !/"api_keys"/.test(q));
    t.queries.length = 0;
    assert.equal((await pay(inv.id, { amount: 1, paid_on: '2025-01-01' })).status, 201);
    assert.equal(own(t.queries).length, 6, own(t.queries).join('\n'));
    t.queries.length = 0;
    await api.get(`/api/v1/invoices/${inv.id}/payments`);
    assert.equal(own(t.queries).length, 2, own(t.queries).join('\n'));
  });

  test('scopes: invoices:read lists, invoices:write records and voids', async () => {
    const inv = await invoice(10);
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['invoices:read']));
    assert.equal((await reader.get(`/api/v1/invoices/${inv.id}/payments`)).status, 200);
    assert.equal((await pay(inv.id, { amount: 1 }, reader)).status, 403);
  });

  test('property: after any sequence of payments and voids, balance = total - live payments and the status follows', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('pay' as const), cents: fc.integer({ min: -5, max: 6000 }) }),
      fc.record({ kind: fc.constant('void' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5000 }), fc.array(op, { minLength: 1, maxLength: 8 }), async (totalCents, ops) => {
        const inv = await invoice(totalCents / 100);
        const live = new Map<number, number>();
        let paidEver = false;
        for (const o of ops) {
          const sum = [...live.values()].reduce((s, c) => s + c, 0);
          if (o.kind === 'pay') {
            const res = await pay(inv.id, { amount: o.cents / 100 });
            if (o.cents <= 0) assert.equal(res.status, 400);
            else if (o.cents > totalCents - sum) assert.equal(res.body.error, 'Payment exceeds the invoice balance');
            else {
              assert.equal(res.status, 201, JSON.stringify(res.body));
              live.set(res.body.data.id, o.cents);
              paidEver = true;
            }
          } else if (live.size) {
            const id = [...live.keys()][o.pick % live.size];
            assert.equal((await api.delete(`/api/v1/invoices/${inv.id}/payments/${id}`)).status, 200);
            live.delete(id);
          }
          const paid = [...live.values()].reduce((s, c) => s + c, 0);
          const got = await get(inv.id);
          assert.equal(Math.round(got.amount_paid * 100), paid);
          assert.equal(Math.round(got.balance * 100), totalCents - paid);
          assert.equal(got.balance, (totalCents - paid) / 100, 'exact: the cents over 100');
          const expected = paid === totalCents ? 'paid' : paid > 0 ? 'partially_paid' : 'sent';
          assert.equal(got.status, expected, `paid ${paid} of ${totalCents}${paidEver ? '' : ' (never paid)'}`);
        }
        const listed = (await api.get(`/api/v1/invoices/${inv.id}/payments`)).body.data as { id: number; amount: number }[];
        assert.deepEqual(listed.map((p) => p.id).sort((x, y) => x - y), [...live.keys()].sort((x, y) => x - y));
      }),
      { numRuns: 25 },
    );
  });
});
