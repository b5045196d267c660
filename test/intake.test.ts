import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { addCustomField } from '../src/modules/custom-fields/custom-fields.service.ts';
import { connectRedis } from '../src/redis.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp, testDatabase, withinOneWindow } from './helpers.ts';

// Issue 6, intake half: POST /api/requests, POST /api/forms/embed-request, D23 custom fields.

const INTERNAL = 'internal-plugin-secret-0123456789';

let t: TestApp;
before(async () => {
  t = await buildTestApp({ INTERNAL_API_KEY: INTERNAL, FORM_RATE_LIMIT: '1000/1h' });
});
after(() => t.close());

const outboxEvents = async (workspaceId: number) =>
  (await t.db.selectFrom('outbox').select('event').where('workspace_id', '=', workspaceId).orderBy('id').execute()).map((r) => r.event);

const validForm = (over: Record<string, unknown> = {}) => ({
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane@example.test',
  phone: '+1 (555) 123-4567',
  description: 'The boiler is leaking.',
  ...over,
});

describe('POST /api/requests (internal)', () => {
  test('creates contact, property and request; bare 201 with number as a string; new_contact and new_request', async () => {
    const ws = await seedWorkspace(t.db);
    const res = await client(t.app, INTERNAL).post('/api/requests', {
      workspace_id: ws.workspace.id,
      name: 'Jane Quincy Public',
      email: 'Jane@Example.test',
      message: 'Fix the roof',
      street: '1 Main St',
      city: 'Springfield',
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['contact_id', 'created_at', 'details', 'id', 'number', 'property_id', 'status', 'workspace_id']);
    assert.equal(res.body.number, '1');
    assert.equal(res.body.status, 'new');
    assert.equal(res.body.details, 'Fix the roof');
    assert.equal(res.body.workspace_id, ws.workspace.id);
    const api = client(t.app, ws.token);
    const contact = (await api.get(`/api/v1/contacts/${res.body.contact_id}`)).body.data;
    assert.equal(contact.first_name, 'Jane');
    assert.equal(contact.last_name, 'Quincy Public');
    const props = (await api.get(`/api/v1/contacts/${res.body.contact_id}/properties`)).body.data;
    assert.equal(props.length, 1);
    assert.equal(props[0].id, res.body.property_id);
    assert.equal(props[0].address.street, '1 Main St');
    const request = (await api.get(`/api/v1/requests/${res.body.id}`)).body.data;
    assert.equal(request.number, 1); // the v1 API keeps it an integer (D13)
    assert.deepEqual(await outboxEvents(ws.workspace.id), ['new_contact', 'new_request']);

    // Matched by email (case-insensitive), then by phone; no address => no property.
    const again = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, email: 'jane@example.TEST' });
    assert.equal(again.status, 201);
    assert.equal(again.body.contact_id, res.body.contact_id);
    assert.equal(again.body.property_id, null);
    assert.equal(again.body.number, '2');
    await api.put(`/api/v1/contacts/${res.body.contact_id}`, { phone: '555-0100' });
    const byPhone = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, phone: '555-0100', first_name: 'J' });
    assert.equal(byPhone.body.contact_id, res.body.contact_id);
    const other = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, phone: '555-0199', first_name: 'Al', last_name: 'Bo' });
    assert.notEqual(other.body.contact_id, res.body.contact_id);
    assert.deepEqual((await outboxEvents(ws.workspace.id)).filter((e) => e === 'new_contact').length, 2);
  });

  test('a contact of another workspace is never matched', async () => {
    const a = await seedWorkspace(t.db);
    const b = await seedWorkspace(t.db);
    const first = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: a.workspace.id, email: 'x@example.test' });
    const second = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: b.workspace.id, email: 'x@example.test' });
    assert.notEqual(first.body.contact_id, second.body.contact_id);
    assert.equal((await client(t.app, b.token).get(`/api/v1/contacts/${second.body.contact_id}`)).status, 200);
  });

  test('401 missing header, wrong key; 404 unknown workspace; 400 invalid body', async () => {
    const ws = await seedWorkspace(t.db);
    const body = { workspace_id: ws.workspace.id, email: 'a@example.test' };
    assert.deepEqual((await client(t.app).post('/api/requests', body)).body, { success: false, error: 'Missing authorization header' });
    const wrong = await client(t.app, 'nope').post('/api/requests', body);
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, { success: false, error: 'Invalid API key' });
    assert.equal((await client(t.app, ws.token).post('/api/requests', body)).status, 401); // a workspace key is not the internal key
    const missing = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: 999999, email: 'a@example.test' });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { success: false, error: 'Workspace not found' });
    const noContact = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, name: 'x' });
    assert.equal(noContact.status, 400);
    assert.equal(noContact.body.error, 'Invalid request');
    assert.deepEqual(noContact.body.details[0].path, ['email']);
    const noWs = await client(t.app, INTERNAL).post('/api/requests', { email: 'a@example.test' });
    assert.equal(noWs.status, 400);
    assert.deepEqual(noWs.body.details[0].path, ['workspace_id']);
    const badEmail = await client(t.app, INTERNAL).post('/api/requests', { workspace_id: ws.workspace.id, email: 'nope' });
    assert.deepEqual(badEmail.body.details[0].path, ['email']);
    assert.deepEqual(await outboxEvents(ws.workspace.id), []);
  });

  test('INTERNAL_API_KEY unset: 401 to everyone', async () => {
    const u = await buildTestApp({});
    try {
      const ws = await seedWorkspace(u.db);
      const res = await client(u.app, 'anything').post('/api/requests', { workspace_id: ws.workspace.id, email: 'a@example.test' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error, 'Invalid API key');
    } finally {
      await u.close();
    }
  });
});

describe('POST /api/forms/embed-request', () => {
  const post = (body: unknown, headers?: Record<string, string>) =>
    client(t.app).post('/api/forms/embed-request', body, { origin: 'https://customer.example', ...headers });

  test('preflight and CORS headers on every answer', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/forms/embed-request',
      headers: { origin: 'https://customer.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.equal(pre.headers['access-control-allow-methods'], 'POST, OPTIONS');
    assert.equal(pre.headers['access-control-allow-headers'], 'Content-Type, Authorization');
    const bad = await post({ formData: {} });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers['access-control-allow-origin'], '*');
  });

  test('creates contact, property and request; success shape with requestNumber a string', async () => {
    const ws = await seedWorkspace(t.db);
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const res = await post({ apiKey: key, formData: validForm({ company: 'Doe Ltd', property: { street: '2 Elm St', postal_code: '12345' } }) });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['contactId', 'propertyId', 'requestId', 'requestNumber']);
    assert.equal(res.body.data.requestNumber, '1');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const api = client(t.app, ws.token);
    const request = (await api.get(`/api/v1/requests/${res.body.data.requestId}`)).body.data;
    assert.equal(request.details, 'The boiler is leaking.');
    assert.equal(request.contact_id, res.body.data.contactId);
    assert.equal(request.property_id, res.body.data.propertyId);
    const contact = (await api.get(`/api/v1/contacts/${res.body.data.contactId}`)).body.data;
    assert.equal(contact.company, 'Doe Ltd');
    assert.equal(contact.phone, '+1 (555) 123-4567');
    assert.deepEqual(await outboxEvents(ws.workspace.id), ['new_contact', 'new_request']);
    // Same email again: the contact is matched; no property given => null.
    const again = await post({ apiKey: key, formData: validForm() });
    assert.equal(again.body.data.contactId, res.body.data.contactId);
    assert.equal(again.body.data.propertyId, null);
    assert.equal(again.body.data.requestNumber, '2');
  });

  test('bad input: oversized fields, bad email and phone, short description, exact D4 shape', async () => {
    const ws = await seedWorkspace(t.db);
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const cases: [Record<string, unknown>, string][] = [
      [{ firstName: 'x'.repeat(51) }, 'firstName'],
      [{ lastName: 'x'.repeat(51) }, 'lastName'],
      [{ company: 'x'.repeat(101) }, 'company'],
      [{ description: 'x'.repeat(1001) }, 'description'],
      [{ description: 'abcd' }, 'description'],
      [{ email: 'not-an-email' }, 'email'],
      [{ phone: 'call me' }, 'phone'],
      [{ phone: '12345' }, 'phone'],
      [{ phone: '1'.repeat(21) }, 'phone'],
      [{ email: undefined }, 'email'],
    ];
    for (const [over, field] of cases) {
      const res = await post({ apiKey: key, formData: validForm(over) });
      assert.equal(res.status, 400, field);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Invalid request data');
      assert.ok(
        res.body.details.some((d: { path: unknown[] }) => JSON.stringify(d.path) === JSON.stringify(['formData', field])),
        `${field}: ${JSON.stringify(res.body.details)}`,
      );
    }
    // At the limits: accepted.
    const edge = await post({
      apiKey: key,
      formData: validForm({ firstName: 'x'.repeat(50), lastName: 'y'.repeat(50), company: 'c'.repeat(100), description: 'd'.repeat(1000) }),
    });
    assert.equal(edge.status, 201);
    const noKey = await post({ formData: validForm() });
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.error, 'Invalid request data');
    assert.deepEqual(noKey.body.details[0].path, ['apiKey']);
    const notJson = await t.app.inject({ method: 'POST', url: '/api/forms/embed-request', payload: '{', headers: { 'content-type': 'application/json' } });
    assert.deepEqual(notJson.json(), { success: false, error: 'Invalid JSON body' });
  });

  test('keys: invalid 401, lacking forms:write 403, legacy needs its own workspaceId (D21)', async () => {
    const ws = await seedWorkspace(t.db);
    const other = await seedWorkspace(t.db);
    const invalid = await post({ apiKey: `wk_${'a'.repeat(8)}.${'b'.repeat(64)}`, formData: validForm() });
    assert.equal(invalid.status, 401);
    assert.deepEqual(invalid.body, { success: false, error: 'Invalid API key' });
    assert.equal((await post({ apiKey: 'garbage', formData: validForm() })).status, 401);
    const rest = await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read', 'requests:write']);
    const denied = await post({ apiKey: rest, formData: validForm() });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: forms:write' });
    // The Plugin and General keys carry forms:write (SPEC Key types).
    assert.equal((await post({ apiKey: await keyFor(t.db, ws.workspace.id, 'plugin'), formData: validForm() })).status, 201);
    assert.equal((await post({ apiKey: ws.token, formData: validForm() })).status, 201);

    const legacy = await keyFor(t.db, ws.workspace.id, 'embed_forms', undefined, { legacy: true });
    const without = await post({ apiKey: legacy, formData: validForm() });
    assert.equal(without.status, 400);
    assert.equal(without.body.error, 'Invalid request data');
    assert.deepEqual(without.body.details[0].path, ['workspaceId']);
    const foreign = await post({ apiKey: legacy, workspaceId: other.workspace.id, formData: validForm() });
    assert.equal(foreign.status, 401);
    assert.equal(foreign.body.error, 'Invalid API key');
    assert.equal((await post({ apiKey: legacy, workspaceId: ws.workspace.id, formData: validForm() })).status, 201);
    // wk_ keys ignore workspaceId: the request lands in the key's workspace.
    const wk = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const ignored = await post({ apiKey: wk, workspaceId: other.workspace.id, formData: validForm() });
    assert.equal(ignored.status, 201);
    assert.equal((await client(t.app, ws.token).get(`/api/v1/requests/${ignored.body.data.requestId}`)).status, 200);
    assert.equal((await client(t.app, other.token).get('/api/v1/requests')).body.data.length, 0);
  });

  test('honeypot (D6): 400 Submission rejected and nothing stored', async () => {
    const ws = await seedWorkspace(t.db);
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const res = await post({ apiKey: key, formData: validForm({ website: 'http://spam.example' }) });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { success: false, error: 'Submission rejected' });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const api = client(t.app, ws.token);
    assert.equal((await api.get('/api/v1/requests')).body.data.length, 0);
    assert.equal((await api.get('/api/v1/contacts')).body.data.length, 0);
    assert.deepEqual(await outboxEvents(ws.workspace.id), []);
    // An empty honeypot is a person.
    assert.equal((await post({ apiKey: key, formData: validForm({ website: '' }) })).status, 201);
  });

  test('customFields checked against the request definitions (D23)', async () => {
    const ws = await seedWorkspace(t.db);
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    // No definitions: anything goes.
    assert.equal((await post({ apiKey: key, formData: validForm({ customFields: { anything: [1, 2] } }) })).status, 201);
    await addCustomField(t.db, ws.workspace.id, {
      module_type: 'request',
      key: 'urgency',
      label: 'Urgency',
      type: 'select',
      options: ['low', 'high'],
      required: true,
    });
    await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'units', label: 'Units', type: 'number', options: null, required: false });
    const check = async (customFields: unknown, key2: string) => {
      const res = await post({ apiKey: key, formData: validForm({ customFields }) });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error, 'Invalid request data');
      assert.deepEqual(
        res.body.details.map((d: { path: unknown[] }) => d.path),
        [['formData', 'customFields', key2]],
      );
    };
    await check({ urgency: 'high', nope: 1 }, 'nope');
    await check({ urgency: 'medium' }, 'urgency');
    await check({ urgency: 'low', units: 'three' }, 'units');
    await check({ units: 3 }, 'urgency');
    const before = (await client(t.app, ws.token).get('/api/v1/requests')).body.data.length;
    const ok = await post({ apiKey: key, formData: validForm({ customFields: { urgency: 'high', units: 3 } }) });
    assert.equal(ok.status, 201);
    const request = (await client(t.app, ws.token).get(`/api/v1/requests/${ok.body.data.requestId}`)).body.data;
    assert.deepEqual(request.custom_fields, { urgency: 'high', units: 3 });
    assert.equal((await client(t.app, ws.token).get('/api/v1/requests')).body.data.length, before + 1);
  });

  test('POST /api/forms/embed-fields: the request custom fields the form draws; keyed like the form (D2, forms:read, D21); CORS; no rate limit', async () => {
    const ws = await seedWorkspace(t.db);
    const other = await seedWorkspace(t.db);
    await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'service_type', label: 'Service type', type: 'select', options: ['Repair', 'Install'], required: true });
    await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'gate_code', label: 'Gate code', type: 'text', options: null, required: false });
    await addCustomField(t.db, ws.workspace.id, { module_type: 'contact', key: 'vip', label: 'VIP', type: 'boolean', options: null, required: false });
    await addCustomField(t.db, other.workspace.id, { module_type: 'request', key: 'theirs', label: 'Theirs', type: 'text', options: null, required: true });
    const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
    const fields = (body: unknown) => client(t.app).post('/api/forms/embed-fields', body);
    const res = await fields({ apiKey: key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.deepEqual(res.body, {
      success: true,
      data: {
        custom_fields: [
          { key: 'service_type', label: 'Service type', type: 'select', options: ['Repair', 'Install'], required: true },
          { key: 'gate_code', label: 'Gate code', type: 'text', options: null, required: false },
        ],
      },
    });
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/forms/embed-fields', headers: { origin: 'https://site.example', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.deepEqual((await fields({ apiKey: (await keyFor(t.db, other.workspace.id, 'embed_forms')) })).body.data.custom_fields.map((f: { key: string }) => f.key), ['theirs']);

    assert.equal((await fields({ apiKey: 'garbage' })).status, 401);
    const noRead = await fields({ apiKey: await keyFor(t.db, ws.workspace.id, 'rest', ['forms:write']) });
    assert.equal(noRead.status, 403);
    assert.equal(noRead.body.error, 'Insufficient permissions. Required scope: forms:read');
    const legacy = await keyFor(t.db, ws.workspace.id, 'embed_forms', undefined, { legacy: true });
    assert.deepEqual((await fields({ apiKey: legacy })).body.details[0].path, ['workspaceId']);
    assert.equal((await fields({ apiKey: legacy, workspaceId: other.workspace.id })).status, 401);
    assert.equal((await fields({ apiKey: legacy, workspaceId: ws.workspace.id })).body.data.custom_fields.length, 2);
    assert.equal((await fields({})).status, 400);
  });

  test('FORM_RATE_LIMIT per workspace, in memory: 429 Rate limit exceeded', async () => {
    await withinOneWindow(3_600_000);
    const u = await buildTestApp({ FORM_RATE_LIMIT: '2/1h' });
    try {
      const a = await seedWorkspace(u.db);
      const b = await seedWorkspace(u.db);
      const ka = await keyFor(u.db, a.workspace.id, 'embed_forms');
      const ka2 = await keyFor(u.db, a.workspace.id, 'plugin');
      const kb = await keyFor(u.db, b.workspace.id, 'embed_forms');
      const send = (apiKey: string) => client(u.app).post('/api/forms/embed-request', { apiKey, formData: validForm() });
      assert.equal((await send(ka)).status, 201);
      assert.equal((await send(ka2)).status, 201); // per workspace, not per key
      const limited = await send(ka);
      assert.equal(limited.status, 429);
      assert.deepEqual(limited.body, { success: false, error: 'Rate limit exceeded' });
      assert.ok(Number(limited.headers['retry-after']) > 0);
      assert.equal((await send(kb)).status, 201); // another workspace has its own budget
    } finally {
      await u.close();
    }
  });

  test('FORM_RATE_LIMIT shared through Redis by two instances', { skip: process.env.TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set' }, async () => {
    await withinOneWindow(3_600_000);
    const { database, drop } = await testDatabase();
    const redis = connectRedis(process.env.TEST_REDIS_URL ?? null);
    const config = loadConfig({ PUBLIC_URL: 'http://fieldwork.test', FORM_RATE_LIMIT: '3/1h', REDIS_URL: process.env.TEST_REDIS_URL ?? '' });
    const one = await buildApp({ config, database, redis, logger: false });
    const two = await buildApp({ config, database, redis, logger: false });
    try {
      const ws = await seedWorkspace(database.db);
      const key = await keyFor(database.db, ws.workspace.id, 'embed_forms');
      const send = (app: typeof one) => client(app).post('/api/forms/embed-request', { apiKey: key, formData: validForm() });
      assert.equal((await send(one)).status, 201);
      assert.equal((await send(two)).status, 201);
      assert.equal((await send(one)).status, 201);
      const limited = await send(two);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, 'Rate limit exceeded');
      const keys = await redis!.keys(`fieldwork-form:${ws.workspace.hash}:*`);
      assert.equal(keys.length, 1);
      assert.equal(await redis!.get(keys[0]), '4');
      assert.ok((await redis!.pttl(keys[0])) > 0);
    } finally {
      await one.close();
      await two.close();
      redis?.disconnect();
      await drop();
    }
  });
});
