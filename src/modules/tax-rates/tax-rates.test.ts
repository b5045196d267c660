import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

type Row = { id: number; [k: string]: unknown };

describe('tax rates', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  test('create: 201; name and rate required; update is partial', async () => {
    const res = await api.post('/api/v1/tax-rates', { name: 'State', rate: 6.25 });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.data.name, res.body.data.rate, res.body.data.description, res.body.data.workspace_id], ['State', 6.25, null, ws.workspace.id]);
    const upd = await api.put(`/api/v1/tax-rates/${res.body.data.id}`, { description: 'Statewide' });
    assert.deepEqual([upd.body.data.rate, upd.body.data.description], [6.25, 'Statewide']);
    for (const [body, path] of [
      [{ rate: 5 }, ['name']],
      [{ name: 'x' }, ['rate']],
      [{ name: 'x', rate: -1 }, ['rate']],
      [{ name: 'x', rate: 101 }, ['rate']],
      [{ name: 'x', rate: '5' }, ['rate']],
    ] as [unknown, string[]][]) {
      const bad = await api.post('/api/v1/tax-rates', body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error, 'Invalid request');
      assert.deepEqual(bad.body.details[0].path, path);
    }
  });

  test('documents copy the rate (D8): editing or deleting the preset leaves them alone', async () => {
    const rate = (await api.post('/api/v1/tax-rates', { name: 'City', rate: 2 })).body.data;
    const quote = (await api.post('/api/v1/quotes', { tax_rate_id: rate.id, line_items: [{ name: 'a', unitPrice: 100 }] })).body.data;
    await api.put(`/api/v1/tax-rates/${rate.id}`, { rate: 3 });
    assert.equal((await api.get(`/api/v1/quotes/${quote.id}`)).body.data.tax_rate, 2);
    assert.deepEqual((await api.delete(`/api/v1/tax-rates/${rate.id}`)).body, { success: true, data: { deleted: true } });
    const after = (await api.get(`/api/v1/quotes/${quote.id}`)).body.data;
    assert.deepEqual([after.tax_rate, after.tax_rate_id, after.total], [2, null, 102]);
    assert.deepEqual((await api.get(`/api/v1/tax-rates/${rate.id}`)).body, { success: false, error: 'Tax rate not found' });
  });

  describe('list', () => {
    let mine: Client;
    let ids: number[];
    before(async () => {
      mine = client(t.app, (await seedWorkspace(t.db)).token);
      ids = [];
      for (const [name, rate, description] of [
        ['Beta', 5, 'county'],
        ['Alpha', 10, null],
        ['Gamma', 1, 'special county'],
      ] as const) {
        ids.push((await mine.post('/api/v1/tax-rates', { name, rate, description })).body.data.id);
      }
      // A later millisecond than the last create: timestamps are kept to the millisecond, and a tie sorts by id.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await mine.put(`/api/v1/tax-rates/${ids[0]}`, { description: 'county (edited)' });
    });

    test('sort_by id, name, rate, created_at, modified_at; search covers name and description', async () => {
      const get = async (q: string) => (await mine.get(`/api/v1/tax-rates?${q}`)).body.data.map((x: Row) => x.id);
      assert.deepEqual(await get(''), [...ids].reverse());
      assert.deepEqual(await get('sort_by=name&sort_direction=asc'), [ids[1], ids[0], ids[2]]);
      assert.deepEqual(await get('sort_by=rate'), [ids[1], ids[0], ids[2]]);
      assert.deepEqual(await get('sort_by=id&sort_direction=asc'), ids);
      assert.deepEqual(await get('sort_by=created_at&sort_direction=asc'), ids);
      assert.deepEqual((await get('sort_by=modified_at'))[0], ids[0], 'modified_at is the last update');
      assert.deepEqual(await get('search=county'), [ids[2], ids[0]]);
      assert.deepEqual(await get('search=alp'), [ids[1]]);
      assert.equal((await mine.get('/api/v1/tax-rates?sort_by=updated')).status, 400);
    });
  });

  test('scopes tax-rates:read / tax-rates:write; foreign ids 404', async () => {
    const { body } = await api.post('/api/v1/tax-rates', { name: 'Mine', rate: 1 });
    const reader = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['tax-rates:read']));
    assert.equal((await reader.get('/api/v1/tax-rates')).status, 200);
    assert.equal((await reader.put(`/api/v1/tax-rates/${body.data.id}`, { rate: 2 })).body.error, 'Insufficient permissions. Required scope: tax-rates:write');
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    assert.deepEqual((await other.put(`/api/v1/tax-rates/${body.data.id}`, { rate: 2 })).body, { success: false, error: 'Tax rate not found' });
  });
});
