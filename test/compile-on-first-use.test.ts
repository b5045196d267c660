import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { compilePending } from '../src/http/compile-on-first-use.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';

// F180: validators and serializers compile at a route's first use, not at start.
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test('a started app has compiled none of its schemas; a first request compiles and uses its own', async () => {
  const { token } = await seedWorkspace(t.db);
  const api = client(t.app, token);
  // The first use of a route: its query validator coerces and checks, its serializer drops what the schema lacks.
  const bad = await api.get('/api/v1/contacts?per_page=1000');
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /per_page/);
  const created = await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace' });
  assert.equal(created.status, 201);
  const listed = await api.get('/api/v1/contacts?per_page=1');
  assert.equal(listed.status, 200);
  assert.deepEqual(Object.keys(listed.body.pagination), ['page', 'per_page', 'total_pages']);
  // Every other schema of the API is still waiting, and every one of them compiles.
  assert.equal(compilePending(), true);
  assert.equal(compilePending(), false);
});
