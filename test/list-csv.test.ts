import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CSV_PAGE_SIZE } from '../src/http/csv.ts';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';

// E29: every paginated list answers CSV (`?format=csv` or `Accept: text/csv`): every
// page, the list's own filters, its own refusals, nothing of another workspace.

describe('list CSV', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let other: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: Client;
  const leads = CSV_PAGE_SIZE + 7; // more than one internal page

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    other = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    const at = new Date().toISOString();
    const row = (workspace_id: number, i: number, type: string) => ({
      workspace_id,
      first_name: `Lead${i}`,
      last_name: 'Csv, "quoted"',
      type,
      info: '{}',
      custom_fields: '{}',
      created_at: at,
      updated_at: at,
    });
    await t.db
      .insertInto('contacts')
      .values(Array.from({ length: leads }, (_, i) => row(ws.workspace.id, i, 'lead')))
      .execute();
    await t.db
      .insertInto('contacts')
      .values([row(ws.workspace.id, 9000, 'customer'), row(other.workspace.id, 9001, 'lead')])
      .execute();
  });
  after(() => t.close());

  test('?format=csv gives every row matching the filters, with a header of the list fields', async () => {
    const res = await api.get('/api/v1/contacts?format=csv&type=lead&per_page=5');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="contacts.csv"/);
    const rows = parse(res.body as string, { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, leads);
    assert.equal(new Set(rows.map((r) => r.id)).size, leads, 'no row twice across pages');
    assert.ok(rows.every((r) => r.type === 'lead' && r.last_name === 'Csv, "quoted"' && r.workspace_id === String(ws.workspace.id)));
    assert.deepEqual(Object.keys(rows[0]).slice(0, 4), ['id', 'workspace_id', 'first_name', 'last_name']);
    assert.equal(rows[0].info, '{}', 'objects are JSON in their cell');
  });

  test('Accept: text/csv does the same; format=json keeps JSON', async () => {
    const csv = await api.get('/api/v1/contacts?type=customer', { accept: 'text/csv' });
    assert.equal(csv.status, 200);
    assert.equal((parse(csv.body as string, { columns: true }) as unknown[]).length, 1);
    const json = await api.get('/api/v1/contacts?type=customer&format=json', { accept: 'text/csv' });
    assert.equal(json.body.data.length, 1);
  });

  test('a list refused as JSON is refused the same as CSV', async () => {
    const bad = await api.get('/api/v1/contacts?format=csv&type=nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
    const badFormat = await api.get('/api/v1/contacts?format=xml');
    assert.equal(badFormat.status, 400);
    const [theirs] = await t.db.selectFrom('contacts').select('id').where('workspace_id', '=', other.workspace.id).execute();
    const notFound = await api.get(`/api/v1/contacts/${theirs.id}/properties?format=csv`);
    assert.equal(notFound.status, 404);
  });

  test('another list (invoices) answers an empty CSV with its header', async () => {
    const res = await api.get('/api/v1/invoices?format=csv');
    assert.equal(res.status, 200);
    const [header, ...rest] = String(res.body).split('\r\n').filter(Boolean);
    assert.match(header, /^id,/);
    assert.deepEqual(rest, []);
  });
});
