import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backend, buildTestApp, type Client, client, ownerSessionToken, seedWorkspace, type TestApp } from './helpers.ts';

// F242: ids are 32-bit on PostgreSQL (serial), so 2147483648 and beyond cannot exist.
// In a list's filter they are a 400 naming the filter, in a path the resource's 404
// (D5): the same on both databases, and never a 500 from PostgreSQL's integer cast.

const PAST = ['2147483648', '99999999999', '9223372036854775808', '1,2147483648'];
const LAST_ID = '2147483647';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: { type?: string; format?: string; pattern?: string; enum?: string[] };
}

let t: TestApp;
let api: Client;
let doc: { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

before(async () => {
  t = await buildTestApp();
  // An owner's session may call every route (team and keys included).
  api = client(t.app, await ownerSessionToken(t.db, (await seedWorkspace(t.db)).workspace.id));
  doc = (await api.get('/api/v1/openapi.json')).body;
});
after(() => t.close());

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
/** A query parameter that names records by id: `id_in`, `<thing>_id` (integers, not user UUIDs). */
const isIdFilter = (p: Parameter) =>
  p.in === 'query' && (p.name === 'id_in' || /(^|_)id$/.test(p.name)) && (p.schema.type === 'integer' || (p.schema.type === 'string' && p.schema.format !== 'uuid' && Boolean(p.schema.pattern)));

describe(`ids past 2147483647 (${backend})`, () => {
  test('every list with an id filter: 400 naming the filter; the last possible id is no error', async () => {
    const lists = t.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/api/') && !r.url.includes(':') && !r.hidden);
    const checked: string[] = [];
    for (const route of lists) {
      const op = doc.paths[route.url]?.get;
      assert.ok(op, `${route.url} is in the OpenAPI document`);
      for (const param of (op.parameters ?? []).filter(isIdFilter)) {
        // The list's other required filters (uploads' module_type), from their enums.
        const others = (op.parameters ?? []).filter((p) => p.required && p.in === 'query' && p !== param).map((p) => `&${p.name}=${p.schema.enum?.[0]}`).join('');
        for (const value of PAST) {
          const label = `${route.url}?${param.name}=${value}`;
          const res = await api.get(`${label}${others}`);
          assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.success, false, label);
          assert.deepEqual(res.body.details?.map((d: { path: unknown[] }) => d.path), [[param.name]], label);
        }
        const last = await api.get(`${route.url}?${param.name}=${LAST_ID}${others}`);
        // Matches nothing, or (a list under a parent: uploads) the parent's 404.
        assert.ok(last.status === 200 || last.status === 404, `${route.url}?${param.name}=${LAST_ID}: ${JSON.stringify(last.body)}`);
        if (last.status === 200) assert.deepEqual(last.body.data, [], `${route.url}?${param.name}=${LAST_ID}`);
        checked.push(`${route.url}?${param.name}`);
      }
    }
    // The lists known to filter by id, so the test cannot pass by finding none.
    for (const known of ['/api/v1/services?id_in', '/api/v1/uploads?module_id', '/api/v1/time-entries?job_id', '/api/v1/webhook-deliveries?subscription_id']) {
      assert.ok(checked.includes(known), `${known} checked (${checked.join(', ')})`);
    }
  });

  test('id_in says which ids it takes', async () => {
    const res = await api.get('/api/v1/services?id_in=1,2147483648');
    assert.deepEqual(res.body.details, [{ path: ['id_in'], message: 'must be ids from 1 to 2147483647, separated by commas' }]);
  });

  test('every route with integer path ids: 404 past the last id, nothing changed', async () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/') && r.url.includes('/:') && !r.hidden);
    let checked = 0;
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      const params = (op?.parameters ?? []).filter((p) => p.in === 'path');
      if (!params.length || params.some((p) => p.schema.type !== 'integer')) continue;
      for (const value of PAST.slice(0, 3)) {
        const url = route.url.replace(/:(\w+)/g, value);
        const res =
          route.method === 'GET'
            ? await api.get(url)
            : route.method === 'DELETE'
              ? await api.delete(url)
              : route.method === 'POST'
                ? await api.post(url, {})
                : route.method === 'PATCH'
                  ? await api.patch(url, {})
                  : await api.put(url, {});
        assert.equal(res.status, 404, `${route.method} ${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.success, false);
      }
      checked++;
    }
    assert.ok(checked >= 40, String(checked));
    assert.equal((await api.get('/api/v1/contacts/99999999999')).body.error, 'Contact not found');
  });
});
