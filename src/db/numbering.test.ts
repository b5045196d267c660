import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { nextNumber } from './numbering.ts';

// D13: per workspace and kind, from 1, gap-free and unique under concurrent creates.
describe('D13 numbers', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;

  before(async () => {
    t = await buildTestApp();
    const ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    workspaceId = ws.workspace.id;
  });
  after(() => t.close());

  const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  for (const kind of ['requests', 'quotes', 'jobs'] as const) {
    test(`50 concurrent ${kind} creates get 1..50, no gaps, no duplicates`, async () => {
      const results = await Promise.all(range(50).map((i) => api.post(`/api/v1/${kind}`, { name: `n${i}` })));
      assert.deepEqual(
        results.map((r) => r.status),
        results.map(() => 201),
      );
      const numbers = results.map((r) => r.body.data.number as number).sort((a, b) => a - b);
      assert.deepEqual(numbers, range(50));
      assert.equal(typeof results[0].body.data.number, 'number', 'an integer in the v1 API');
    });
  }

  test('each workspace counts on its own', async () => {
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    assert.equal((await other.post('/api/v1/quotes', {})).body.data.number, 1);
    assert.equal((await api.post('/api/v1/quotes', {})).body.data.number, 51);
  });

  test('a failed create gives its number back; a deleted record never gives its number back', async () => {
    const bad = await api.post('/api/v1/requests', { contact_id: 999999 });
    assert.equal(bad.status, 400);
    const next = await api.post('/api/v1/requests', {});
    assert.equal(next.body.data.number, 51);
    await api.delete(`/api/v1/requests/${next.body.data.id}`);
    assert.equal((await api.post('/api/v1/requests', {})).body.data.number, 52);
  });

  test('a rolled-back transaction leaves the counter where it was', async () => {
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        assert.equal(await nextNumber(trx, workspaceId, 'jobs'), 51);
        throw new Error('rollback');
      }),
    );
    assert.equal(await t.db.transaction().execute((trx) => nextNumber(trx, workspaceId, 'jobs')), 51);
  });
});
