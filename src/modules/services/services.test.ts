import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('services', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  test('create: 201 with defaults price 0, type service, taxable true', async () => {
    const res = await api.post('/api/v1/services', { name: 'Lawn mowing' });
    assert.equal(res.status, 201);
    const s = res.body.data;
    assert.deepEqual(
      [s.name, s.description, s.price, s.sku, s.type, s.taxable, s.workspace_id],
      ['Lawn mowing', null, 0, null, 'service', true, ws.workspace.id],
    );
    assert.match(s.created_at, /^\d{4}-/);
    const p = await api.post('/api/v1/services', { name: 'Mulch bag', price: 4.99, sku: 'MB-1', type: 'product', taxable: false, description: 'Cedar' });
    assert.deepEqual([p.body.data.price, p.body.data.type, p.body.data.taxable, p.body.data.sku], [4.99, 'product', false, 'MB-1']);
    const upd = await api.put(`/api/v1/services/${p.body.data.id}`, { taxable: true });
    assert.deepEqual([upd.body.data.taxable, upd.body.data.price, upd.body.data.name], [true, 4.99, 'Mulch bag']);
  });

  test('bad input is 400 Invalid request with details', async () => {
    for (const [body, path] of [
      [{}, ['name']],
      [{ name: '' }, ['name']],
      [{ name: 'a', price: -1 }, ['price']],
      [{ name: 'a', price: 2e9 }, ['price']],
      [{ name: 'a', type: 'gadget' }, ['type']],
      [{ name: 'a', taxable: 'yes' }, ['taxable']],
      [{ name: 'a', sku: 'x'.repeat(101) }, ['sku']],
    ] as [unknown, string[]][]) {
      const res = await api.post('/api/v1/services', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path);
    }
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    before(async () => {
      mine = client(t.app, (await seedWorkspace(t.db)).token);
      ids = [];
      for (const [name, description] of [
        ['Hedge trim', 'Shrubs and hedges'],
        ['Leaf removal', 'Autumn'],
        ['Snow plow', 'Driveways, hedge-free'],
      ]) {
        ids.push((await mine.post('/api/v1/services', { name, description })).body.data.id);
      }
    });

    test('id_in takes comma-separated ids; search covers name and description', async () => {
      const get = async (q: string) => (await mine.get(`/api/v1/services?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get(`id_in=${ids[0]},${ids[2]}`), [ids[2], ids[0]]);
      assert.deepEqual(await get(`id_in=${ids[1]}`), [ids[1]]);
      assert.deepEqual(await get('search=hedge'), [ids[2], ids[0]]);
      assert.deepEqual(await get('search=autumn'), [ids[1]]);
      assert.deepEqual(await get('sort_by=name&sort_direction=asc'), ids);
      for (const q of ['id_in=a,b', 'id_in=1,,2', 'sort_by=cost']) assert.equal((await mine.get(`/api/v1/services?${q}`)).status, 400, q);
    });

    test("id_in never reaches another workspace's services", async () => {
      const res = await api.get(`/api/v1/services?id_in=${ids.join(',')}`);
      assert.deepEqual(res.body.data, []);
    });
  });

  test('D12 delete is permanent; scope services:*; foreign ids 404', async () => {
    const { body } = await api.post('/api/v1/services', { name: 'Gone' });
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['services:read']));
    assert.equal((await reader.get(`/api/v1/services/${body.data.id}`)).status, 200);
    const denied = await reader.post('/api/v1/services', { name: 'x' });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, 'Insufficient permissions. Required scope: services:write');
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    assert.deepEqual((await other.delete(`/api/v1/services/${body.data.id}`)).body, { success: false, error: 'Service not found' });
    assert.deepEqual((await api.delete(`/api/v1/services/${body.data.id}`)).body, { success: true, data: { deleted: true } });
    assert.deepEqual((await api.get(`/api/v1/services/${body.data.id}`)).body, { success: false, error: 'Service not found' });
  });
});
