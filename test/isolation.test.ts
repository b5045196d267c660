import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';

// Tenant isolation, for every route: another workspace's id behaves exactly
// like an id that does not exist (same status, same body), and the owner's
// record is left as it was. A route with path ids and no fixture here fails
// the suite, so every new resource has to join it.

/** Makes records in workspace A; returns the path parameters naming them. */
type Fixture = { make: (a: Client, t: TestApp) => Promise<Record<string, number>>; body?: Record<string, unknown> };

const contact = async (a: Client) => (await a.post('/api/v1/contacts', { first_name: 'Iso', last_name: 'Lated' })).body.data.id as number;

const fixtures: Record<string, Fixture> = {
  '/api/v1/contacts/:id': { make: async (a) => ({ id: await contact(a) }), body: { company: 'Changed' } },
  '/api/v1/contacts/:id/properties': { make: async (a) => ({ id: await contact(a) }), body: { address: { city: 'X' } } },
  '/api/v1/contacts/:id/properties/:propertyId': {
    make: async (a) => {
      const id = await contact(a);
      const p = await a.post(`/api/v1/contacts/${id}/properties`, { address: { city: 'Home' } });
      return { id, propertyId: p.body.data.id };
    },
    body: { role: 'tenant' },
  },
};

const ABSENT = 2_000_000_000;

describe('tenant isolation on every route', () => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  before(async () => {
    t = await buildTestApp();
    a = client(t.app, (await seedWorkspace(t.db, 'Owner Co')).token);
    b = client(t.app, (await seedWorkspace(t.db, 'Intruder Co')).token);
  });
  after(() => t.close());

  test('every route with path ids has a fixture', () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && r.url.includes('/:'));
    const missing = [...new Set(routes.map((r) => r.url))].filter((u) => !fixtures[u]);
    assert.deepEqual(missing, [], 'add these routes to test/isolation.test.ts');
  });

  test("another workspace's ids answer exactly like absent ids, and change nothing", async () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && r.url.includes('/:') && fixtures[r.url]);
    assert.ok(routes.length >= 4);
    for (const route of routes) {
      const fixture = fixtures[route.url];
      const params = await fixture.make(a, t);
      const fill = (values: Record<string, number>) => route.url.replace(/:(\w+)/g, (_, name: string) => String(values[name]));
      const absent = Object.fromEntries(Object.keys(params).map((k) => [k, ABSENT]));
      const call = (c: Client, url: string) => {
        if (route.method === 'GET') return c.get(url);
        if (route.method === 'DELETE') return c.delete(url);
        return route.method === 'POST' ? c.post(url, fixture.body ?? {}) : route.method === 'PATCH' ? c.patch(url, fixture.body ?? {}) : c.put(url, fixture.body ?? {});
      };
      // The owner's view of the same URL, where it can be read, before and after.
      const readable = t.app.routeTable.some((r) => r.method === 'GET' && r.url === route.url);
      const ownerView = readable ? await a.get(fill(params)) : null;
      const foreign = await call(b, fill(params));
      const missing = await call(b, fill(absent));
      const label = `${route.method} ${route.url}`;
      assert.equal(foreign.status, 404, `${label}: ${JSON.stringify(foreign.body)}`);
      assert.deepEqual(foreign.body, missing.body, label);
      assert.equal(foreign.status, missing.status, label);
      if (ownerView) assert.deepEqual((await a.get(fill(params))).body, ownerView.body, `${label}: the owner's record changed`);
    }
  });

  test('lists of another workspace never show its records', async () => {
    await contact(a);
    const lists = t.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/') && !r.url.includes(':') && !r.hidden);
    for (const route of lists) {
      if (['/api/v1/users', '/api/v1/workspace'].includes(route.url)) continue; // B's own members and workspace
      const res = await b.get(route.url);
      if (res.status === 400) continue; // lists that need a parent (uploads, comments) are covered by their fixtures
      assert.equal(res.status, 200, route.url);
      assert.deepEqual(res.body.data, [], route.url);
    }
    const users = (await b.get('/api/v1/users')).body.data;
    assert.equal(users.length, 1);
    assert.match(users[0].email, /^owner/);
  });
});
