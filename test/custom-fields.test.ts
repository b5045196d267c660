// D23: `fieldwork custom-field add`, GET /api/v1/custom-fields, and the one
// validation of `custom_fields` on contacts, requests, quotes, jobs and invoices.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addCustomField } from '../src/modules/custom-fields/custom-fields.service.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp } from './helpers.ts';

const root = path.resolve(import.meta.dirname, '..');

function cli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fieldwork.js'), ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: url } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

describe('fieldwork custom-field add', () => {
  test('prints the definition, which GET /api/v1/custom-fields then lists', async () => {
    const ws = await seedWorkspace(t.db);
    const w = String(ws.workspace.id);
    const r = await cli(t.url, [
      'custom-field',
      'add',
      '--workspace',
      w,
      '--module',
      'job',
      '--key',
      'gate_code',
      '--label',
      'Gate code',
      '--type',
      'text',
      '--required',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out.custom_field).sort(), ['id', 'key', 'label', 'module_type', 'options', 'required', 'type']);
    assert.deepEqual(
      { ...out.custom_field, id: 0 },
      { id: 0, module_type: 'job', key: 'gate_code', label: 'Gate code', type: 'text', options: null, required: true },
    );
    const sel = await cli(t.url, [
      'custom-field',
      'add',
      '--workspace',
      w,
      '--module',
      'contact',
      '--key',
      'tier',
      '--label',
      'Tier',
      '--type',
      'select',
      '--options',
      'gold,silver',
      '--json',
    ]);
    assert.deepEqual(JSON.parse(sel.stdout).custom_field.options, ['gold', 'silver']);

    for (const bad of [
      ['--module', 'contact', '--key', 'tier', '--label', 'Again', '--type', 'text'], // duplicate
      ['--module', 'contact', '--key', 'x', '--label', 'X', '--type', 'select'], // select without options
      ['--module', 'contact', '--key', 'x', '--label', 'X', '--type', 'colour'],
      ['--module', 'widget', '--key', 'x', '--label', 'X', '--type', 'text'],
      ['--module', 'contact', '--key', 'bad key', '--label', 'X', '--type', 'text'],
    ]) {
      const f = await cli(t.url, ['custom-field', 'add', '--workspace', w, ...bad, '--json']);
      assert.notEqual(f.code, 0, bad.join(' '));
      assert.equal(f.stdout, '');
    }

    const api = client(t.app, await keyFor(t.db, ws.workspace.id, 'plugin')); // custom_fields:read
    const all = await api.get('/api/v1/custom-fields');
    assert.equal(all.status, 200);
    assert.equal(all.body.success, true);
    assert.equal(all.body.data.length, 2);
    assert.deepEqual(all.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    const jobs = await api.get('/api/v1/custom-fields?module_type=job');
    assert.deepEqual(
      jobs.body.data.map((f: { key: string }) => f.key),
      ['gate_code'],
    );
    const paged = await api.get('/api/v1/custom-fields?per_page=1&sort_by=key&sort_direction=asc');
    assert.deepEqual(
      paged.body.data.map((f: { key: string }) => f.key),
      ['gate_code'],
    );
    assert.equal(paged.body.pagination.total_pages, 2);
    assert.equal((await api.get('/api/v1/custom-fields?module_type=widget')).status, 400);
    const embed = await client(t.app, await keyFor(t.db, ws.workspace.id, 'embed_forms')).get('/api/v1/custom-fields');
    assert.equal(embed.status, 403);
    assert.equal(embed.body.error, 'Insufficient permissions. Required scope: custom_fields:read');
    // Another workspace sees none of them.
    const other = await seedWorkspace(t.db);
    assert.equal((await client(t.app, other.token).get('/api/v1/custom-fields')).body.data.length, 0);
  });
});

describe('custom_fields validated on every record (D23)', () => {
  test('no definitions: any object is accepted', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const res = await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { whatever: { nested: true } } });
    assert.equal(res.status, 201);
  });

  test('contacts answer 422 Validation failed naming the key', async () => {
    const ws = await seedWorkspace(t.db);
    await addCustomField(t.db, ws.workspace.id, {
      module_type: 'contact',
      key: 'tier',
      label: 'Tier',
      type: 'select',
      options: ['gold', 'silver'],
      required: true,
    });
    await addCustomField(t.db, ws.workspace.id, { module_type: 'contact', key: 'since', label: 'Since', type: 'date', options: null, required: false });
    await addCustomField(t.db, ws.workspace.id, { module_type: 'contact', key: 'vip', label: 'VIP', type: 'boolean', options: null, required: false });
    const api = client(t.app, ws.token);
    const fail = async (res: Awaited<ReturnType<typeof api.post>>, key: string) => {
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error, 'Validation failed');
      assert.deepEqual(
        res.body.details.map((d: { path: unknown[] }) => d.path),
        [['custom_fields', key]],
      );
    };
    await fail(await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B' }), 'tier'); // required on create
    await fail(await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { tier: 'bronze' } }), 'tier');
    await fail(await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { tier: 'gold', since: '2024-13-01' } }), 'since');
    await fail(await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { tier: 'gold', vip: 'yes' } }), 'vip');
    await fail(await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { tier: 'gold', extra: 1 } }), 'extra');
    const ok = await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: { tier: 'gold', since: '2024-01-31', vip: true } });
    assert.equal(ok.status, 201);
    // Update: the required field need not be repeated, but what is given is checked.
    assert.equal((await api.put(`/api/v1/contacts/${ok.body.data.id}`, { company: 'Co' })).status, 200);
    await fail(await api.put(`/api/v1/contacts/${ok.body.data.id}`, { custom_fields: { vip: 1 } }), 'vip');
    const arr = await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B', custom_fields: ['gold'] });
    assert.equal(arr.status, 422);
    assert.deepEqual(arr.body.details[0].path, ['custom_fields']);
  });

  for (const [module, path] of [
    ['request', '/api/v1/requests'],
    ['quote', '/api/v1/quotes'],
    ['job', '/api/v1/jobs'],
    ['invoice', '/api/v1/invoices'],
  ] as const) {
    test(`${module}s answer 400 Invalid request naming the key`, async () => {
      const ws = await seedWorkspace(t.db);
      await addCustomField(t.db, ws.workspace.id, { module_type: module, key: 'crew', label: 'Crew size', type: 'number', options: null, required: true });
      const api = client(t.app, ws.token);
      for (const body of [{ name: 'X' }, { name: 'X', custom_fields: { crew: '3' } }, { name: 'X', custom_fields: { crew: 3, other: 1 } }]) {
        const res = await api.post(path, body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error, 'Invalid request');
        assert.equal(res.body.details[0].path[0], 'custom_fields');
      }
      const ok = await api.post(path, { name: 'X', custom_fields: { crew: 3 } });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.data.custom_fields, { crew: 3 });
      const bad = await api.put(`${path}/${ok.body.data.id}`, { custom_fields: { crew: 'many' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details[0].path, ['custom_fields', 'crew']);
      assert.equal((await api.put(`${path}/${ok.body.data.id}`, { name: 'Y' })).status, 200);
      // Another module's definitions do not apply here.
      const other = await seedWorkspace(t.db);
      await addCustomField(t.db, other.workspace.id, {
        module_type: module === 'job' ? 'quote' : 'job',
        key: 'crew',
        label: 'Crew',
        type: 'number',
        options: null,
        required: true,
      });
      assert.equal((await client(t.app, other.token).post(path, { name: 'Z' })).status, 201);
    });
  }
});

// D23 on every create path: the check lives in the one function that creates
// each record (createQuote, insertJob, createRequest), so the template copy, the
// job of an accepted quote, the internal endpoint and the form get it too. A
// record the service creates from a source carries what the source provides
// (the job: the quote's values for the keys jobs define; the form: its
// customFields; the internal endpoint: nothing) and the requirement applies.
describe('required custom fields on every create path (D23)', () => {
  const INTERNAL = 'internal-plugin-secret-d23-0123456789';
  let u: TestApp;
  before(async () => {
    u = await buildTestApp({ INTERNAL_API_KEY: INTERNAL, FORM_RATE_LIMIT: '1000/1h' });
  });
  after(() => u.close());

  /** Everything a create could have written in the workspace: row counts and the D13 counters. */
  async function written(workspaceId: number) {
    const counts: Record<string, number> = {};
    for (const table of ['contacts', 'properties', 'requests', 'quotes', 'jobs', 'quote_status_changes', 'outbox'] as const) {
      const r = await u.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      counts[table] = Number(r.n);
    }
    const counters = await u.db.selectFrom('counters').select(['kind', 'value']).where('workspace_id', '=', workspaceId).orderBy('kind').execute();
    return { counts, counters };
  }

  /** `write` is refused with a 400 naming `path`, and writes nothing. */
  async function refused(workspaceId: number, write: () => Promise<{ status: number; body: any }>, path: (string | number)[]) {
    const before = await written(workspaceId);
    const res = await write();
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.success, false);
    assert.deepEqual(
      res.body.details.map((d: { path: unknown[] }) => d.path),
      [path],
    );
    assert.deepEqual(await written(workspaceId), before);
    return res;
  }

  async function workspaceRequiring(module: 'request' | 'quote' | 'job', key = 'po') {
    const ws = await seedWorkspace(u.db);
    await addCustomField(u.db, ws.workspace.id, { module_type: module, key, label: key, type: 'text', options: null, required: true });
    return { ws, api: client(u.app, ws.token) };
  }

  for (const [module, path] of [
    ['quote', '/api/v1/quotes'],
    ['job', '/api/v1/jobs'],
    ['request', '/api/v1/requests'],
  ] as const) {
    test(`POST ${path}: refused without the required field, nothing written`, async () => {
      const { ws, api } = await workspaceRequiring(module);
      const contact = (await api.post('/api/v1/contacts', { first_name: 'A', last_name: 'B' })).body.data.id;
      await refused(ws.workspace.id, () => api.post(path, { contact_id: contact }), ['custom_fields', 'po']);
      const ok = await api.post(path, { contact_id: contact, custom_fields: { po: 'PO-1' } });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.data.number, 1); // the refused create gave its number back (D13)
    });
  }

  test('POST /quote-templates/:id/create-quote: a template carries no custom fields, so a required quote field refuses it', async () => {
    const { ws, api } = await workspaceRequiring('quote');
    const template = (await api.post('/api/v1/quote-templates', { template_name: 'Roof', name: 'Roof', line_items: [{ name: 'Tile', unitPrice: 5 }] })).body.data;
    await refused(ws.workspace.id, () => api.post(`/api/v1/quote-templates/${template.id}/create-quote`), ['custom_fields', 'po']);
  });

  test('POST /requests/:id/create-quote (E6): a request carries no quote custom fields, so a required quote field refuses it; the request keeps its status', async () => {
    const { ws, api } = await workspaceRequiring('quote');
    const request = (await api.post('/api/v1/requests', { name: 'Fence' })).body.data;
    await refused(ws.workspace.id, () => api.post(`/api/v1/requests/${request.id}/create-quote`), ['custom_fields', 'po']);
    assert.equal((await api.get(`/api/v1/requests/${request.id}`)).body.data.status, 'new');
  });

  test('accepting a quote: its job carries the quote values of the keys jobs define; without a required one, nothing changes', async () => {
    const { ws, api } = await workspaceRequiring('job', 'gate_code');
    // No quote definitions here, so a quote may carry any object.
    const bare = (await api.post('/api/v1/quotes', { name: 'No code', custom_fields: { colour: 'red' } })).body.data;
    await refused(ws.workspace.id, () => api.put(`/api/v1/quotes/${bare.id}/status`, { status: 'accepted' }), ['custom_fields', 'gate_code']);
    const still = (await api.get(`/api/v1/quotes/${bare.id}`)).body.data;
    assert.equal(still.status, 'draft');
    assert.equal(still.job, null);
    assert.deepEqual(still.status_changes, []);
    // Created as accepted (D14 from the create path): refused the same way.
    await refused(ws.workspace.id, () => api.post('/api/v1/quotes', { status: 'accepted' }), ['custom_fields', 'gate_code']);

    const coded = (await api.post('/api/v1/quotes', { name: 'Coded', custom_fields: { gate_code: '1234', colour: 'red' } })).body.data;
    const accepted = await api.put(`/api/v1/quotes/${coded.id}/status`, { status: 'accepted' });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const job = (await api.get(`/api/v1/jobs/${accepted.body.data.job.id}`)).body.data;
    assert.deepEqual(job.custom_fields, { gate_code: '1234' });
  });

  test('POST /api/requests (internal): it cannot send custom fields, so a required request field refuses it; no contact or property is left behind', async () => {
    const { ws } = await workspaceRequiring('request');
    await refused(
      ws.workspace.id,
      () => client(u.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, name: 'Jane Doe', email: 'jane@example.test', street: '1 Main St' }),
      ['custom_fields', 'po'],
    );
  });

  test('POST /api/forms/embed-request: the form customFields must hold the required field; no contact or property is left behind', async () => {
    const { ws } = await workspaceRequiring('request');
    const key = await keyFor(u.db, ws.workspace.id, 'embed_forms');
    const form = (customFields?: object) => ({
      apiKey: key,
      formData: {
        firstName: 'Jane',
        lastName: 'Doe',
        email: 'jane@example.test',
        phone: '+1 555 123 4567',
        description: 'The boiler is leaking.',
        property: { street: '1 Main St' },
        ...(customFields && { customFields }),
      },
    });
    const res = await refused(ws.workspace.id, () => client(u.app).post('/api/forms/embed-request', form()), ['formData', 'customFields', 'po']);
    assert.equal(res.body.error, 'Invalid request data');
    const ok = await client(u.app).post('/api/forms/embed-request', form({ po: 'PO-9' }));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });
});
