import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

interface P {
  id: number;
  address: Record<string, string>;
  property_type: string;
  role?: string;
  contact_ids?: number[];
  workspace_id: number;
  created_at: string;
  updated_at: string;
}

const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((p) => p.id);

describe('properties', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;
  let otherApi: Client;
  const newContact = async (c: Client = api) => (await c.post('/api/v1/contacts', { first_name: 'Pat', last_name: 'Prop' })).body.data.id as number;

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    api = client(t.app, seeded.token);
    workspaceId = seeded.workspace.id;
    otherApi = client(t.app, (await seedWorkspace(t.db)).token);
  });
  after(() => t.close());

  test('create answers 201 with defaults: empty address sub-fields, single-family, owner', async () => {
    const contactId = await newContact();
    const res = await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '1 Main St', city: 'Springfield' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const p: P = res.body.data;
    assert.deepEqual(p.address, { street: '1 Main St', street_2: '', city: 'Springfield', state: '', postal_code: '', country: '' });
    assert.equal(p.property_type, 'single-family');
    assert.equal(p.role, 'owner');
    assert.equal(p.workspace_id, workspaceId);
    assert.equal('contact_ids' in p, false);
    assert.match(p.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(p.updated_at, p.created_at);

    const empty = await api.post(`/api/v1/contacts/${contactId}/properties`, { address: {}, property_type: 'land', role: 'tenant', bogus: 1 });
    assert.equal(empty.status, 201);
    assert.equal(empty.body.data.property_type, 'land');
    assert.equal(empty.body.data.role, 'tenant');
    assert.equal(empty.body.data.address.street, '');
    assert.equal('bogus' in empty.body.data, false);
  });

  test('GET /contacts/:id/properties lists the linked properties with their role', async () => {
    const contactId = await newContact();
    const a = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: 'A' } })).body.data;
    const b = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: 'B' }, role: 'manager' })).body.data;
    const res = await api.get(`/api/v1/contacts/${contactId}/properties`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, [b, a]); // D1: newest first
    assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    const none = await api.get(`/api/v1/contacts/${await newContact()}/properties`);
    assert.deepEqual(none.body, { success: true, data: [], pagination: { page: 1, per_page: 25, total_pages: 0 } });
  });

  test('D26: PUT changes only the given address sub-fields, the type and the link role', async () => {
    const contactId = await newContact();
    const created = (
      await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '5 Elm', city: 'Shelbyville', state: 'IL', postal_code: '62565', country: 'US' } })
    ).body.data;
    const res = await api.put(`/api/v1/contacts/${contactId}/properties/${created.id}`, { address: { city: 'Capital City' }, role: 'agent' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.address, { street: '5 Elm', street_2: '', city: 'Capital City', state: 'IL', postal_code: '62565', country: 'US' });
    assert.equal(res.body.data.role, 'agent');
    assert.equal(res.body.data.property_type, 'single-family');
    assert.equal(res.body.data.created_at, created.created_at);
    assert.ok(res.body.data.updated_at >= created.updated_at);

    const typed = await api.put(`/api/v1/contacts/${contactId}/properties/${created.id}`, { property_type: 'commercial' });
    assert.equal(typed.body.data.property_type, 'commercial');
    assert.equal(typed.body.data.role, 'agent');
    assert.equal(typed.body.data.address.city, 'Capital City');
    const listed = await api.get(`/api/v1/contacts/${contactId}/properties`);
    assert.deepEqual(listed.body.data, [typed.body.data]);
  });

  test('link an existing property to a second contact; contact_ids shows both; roles are per link', async () => {
    const first = await newContact();
    const second = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${first}/properties`, { address: { street: 'Shared 1' } })).body.data;
    const linked = await api.post(`/api/v1/contacts/${second}/properties`, { property_id: prop.id, role: 'tenant' });
    assert.equal(linked.status, 201);
    assert.equal(linked.body.data.id, prop.id);
    assert.equal(linked.body.data.role, 'tenant');
    assert.deepEqual(linked.body.data.address, prop.address);

    const all = await api.get('/api/v1/properties?search=Shared%201');
    assert.deepEqual(all.body.data.map((p: P) => [p.id, p.contact_ids]), [[prop.id, [first, second].sort((x, y) => x - y)]]);
    assert.equal('role' in all.body.data[0], false);

    // Changing the role on one link leaves the other alone; the address is shared.
    await api.put(`/api/v1/contacts/${second}/properties/${prop.id}`, { role: 'other', address: { street: 'Shared 1b' } });
    const firstView = (await api.get(`/api/v1/contacts/${first}/properties`)).body.data[0];
    assert.equal(firstView.role, 'owner');
    assert.equal(firstView.address.street, 'Shared 1b');

    const again = await api.post(`/api/v1/contacts/${second}/properties`, { property_id: prop.id });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { success: false, error: 'Property is already linked to this contact' });
  });

  test('linking: default role owner; unknown or foreign property_id is 422 naming property_id (D11)', async () => {
    const first = await newContact();
    const second = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${first}/properties`, { address: { street: 'X' } })).body.data;
    assert.equal((await api.post(`/api/v1/contacts/${second}/properties`, { property_id: prop.id })).body.data.role, 'owner');

    const foreignContact = await newContact(otherApi);
    const foreign = (await otherApi.post(`/api/v1/contacts/${foreignContact}/properties`, { address: { street: 'Theirs' } })).body.data;
    for (const propertyId of [999999, foreign.id]) {
      const res = await api.post(`/api/v1/contacts/${first}/properties`, { property_id: propertyId });
      assert.equal(res.status, 422, String(propertyId));
      assert.equal(res.body.error, 'Validation failed');
      assert.deepEqual(res.body.details.map((d: { path: unknown }) => d.path), [['property_id']]);
    }
    // The foreign property was not linked to anyone here.
    assert.deepEqual((await otherApi.get('/api/v1/properties')).body.data.map((p: P) => p.contact_ids), [[foreignContact]]);
  });

  test('create body: exactly one of address and property_id (422)', async () => {
    const contactId = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: {} })).body.data;
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['address']],
      [{ role: 'owner' }, ['address']],
      [{ address: { street: 'a' }, property_id: prop.id }, ['property_id']],
      [{ property_id: prop.id, property_type: 'land' }, ['property_type']],
    ];
    for (const [body, path] of cases) {
      const res = await api.post(`/api/v1/contacts/${await newContact()}/properties`, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error, 'Validation failed');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body));
    }
  });

  test('D4: schema violations are 422 Validation failed with detail paths; nothing written', async () => {
    const contactId = await newContact();
    const cases: [unknown, (string | number)[]][] = [
      [{ address: { city: 42 } }, ['address', 'city']],
      [{ address: { street: 'x'.repeat(256) } }, ['address', 'street']],
      [{ address: { postal_code: 'x'.repeat(33) } }, ['address', 'postal_code']],
      [{ address: 'Main St' }, ['address']],
      [{ address: {}, property_type: 'castle' }, ['property_type']],
      [{ address: {}, role: 'landlord' }, ['role']],
      [{ property_id: 'abc' }, ['property_id']],
      [{ property_id: 0 }, ['property_id']],
    ];
    for (const [body, path] of cases) {
      const res = await api.post(`/api/v1/contacts/${contactId}/properties`, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Validation failed');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body));
      assert.equal(typeof res.body.details[0].message, 'string');
    }
    assert.deepEqual((await api.get(`/api/v1/contacts/${contactId}/properties`)).body.data, []);

    const prop = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { city: 'Keep' } })).body.data;
    for (const [body, path] of [
      [{ address: { city: 7 } }, ['address', 'city']],
      [{ role: 'boss' }, ['role']],
      [{ property_type: 1 }, ['property_type']],
    ] as const) {
      const res = await api.put(`/api/v1/contacts/${contactId}/properties/${prop.id}`, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body.details[0].path, path);
    }
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties`)).body.data[0].address.city, 'Keep');
  });

  test('D5: malformed JSON is 400 Invalid JSON body', async () => {
    const res = await api.post(`/api/v1/contacts/${await newContact()}/properties`, '{"address": ');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { success: false, error: 'Invalid JSON body' });
  });

  test('DELETE removes only the link; the property stays in GET /properties', async () => {
    const first = await newContact();
    const second = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${first}/properties`, { address: { street: 'Unlink Rd' } })).body.data;
    await api.post(`/api/v1/contacts/${second}/properties`, { property_id: prop.id });

    const del = await api.delete(`/api/v1/contacts/${first}/properties/${prop.id}`);
    assert.deepEqual(del.body, { success: true, data: { deleted: true } });
    assert.deepEqual((await api.get(`/api/v1/contacts/${first}/properties`)).body.data, []);
    assert.deepEqual((await api.get('/api/v1/properties?search=Unlink')).body.data.map((p: P) => p.contact_ids), [[second]]);

    const again = await api.delete(`/api/v1/contacts/${first}/properties/${prop.id}`);
    assert.equal(again.status, 404);
    assert.deepEqual(again.body, { success: false, error: 'Property not found' });
    // Not linked to `first` any more: PUT there is 404 too.
    assert.deepEqual((await api.put(`/api/v1/contacts/${first}/properties/${prop.id}`, { role: 'tenant' })).body, { success: false, error: 'Property not found' });

    await api.delete(`/api/v1/contacts/${second}/properties/${prop.id}`);
    const orphan = await api.get('/api/v1/properties?search=Unlink');
    assert.deepEqual(orphan.body.data.map((p: P) => [p.id, p.contact_ids]), [[prop.id, []]]);
    // An unlinked property can be linked again.
    assert.equal((await api.post(`/api/v1/contacts/${first}/properties`, { property_id: prop.id })).status, 201);
  });

  test('deleting a contact takes its links, not the shared property', async () => {
    const first = await newContact();
    const second = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${first}/properties`, { address: { street: 'Cascade Way' } })).body.data;
    await api.post(`/api/v1/contacts/${second}/properties`, { property_id: prop.id });
    assert.equal((await api.delete(`/api/v1/contacts/${first}`)).status, 200);
    assert.deepEqual((await api.get('/api/v1/properties?search=Cascade')).body.data.map((p: P) => p.contact_ids), [[second]]);
  });

  test('404 texts: unknown contact, unlinked property, non-integer ids (D5, D32)', async () => {
    const contactId = await newContact();
    const prop = (await api.post(`/api/v1/contacts/${contactId}/properties`, { address: {} })).body.data;
    const other = await newContact();
    const contact404 = { success: false, error: 'Contact not found' };
    const property404 = { success: false, error: 'Property not found' };

    for (const id of ['999999', 'abc', '1.5', '0', '99999999999']) {
      assert.deepEqual((await api.get(`/api/v1/contacts/${id}/properties`)).body, contact404, id);
      assert.deepEqual((await api.post(`/api/v1/contacts/${id}/properties`, { address: {} })).body, contact404, id);
      assert.deepEqual((await api.put(`/api/v1/contacts/${id}/properties/${prop.id}`, {})).body, contact404, id);
      assert.deepEqual((await api.delete(`/api/v1/contacts/${id}/properties/${prop.id}`)).body, contact404, id);
    }
    for (const pid of ['999999', 'abc', '1.5', '0', '99999999999']) {
      const put = await api.put(`/api/v1/contacts/${contactId}/properties/${pid}`, {});
      assert.equal(put.status, 404, pid);
      assert.deepEqual(put.body, property404, pid);
      assert.deepEqual((await api.delete(`/api/v1/contacts/${contactId}/properties/${pid}`)).body, property404, pid);
    }
    // A property of the workspace that is linked to another contact.
    assert.deepEqual((await api.put(`/api/v1/contacts/${other}/properties/${prop.id}`, { role: 'tenant' })).body, property404);
    assert.deepEqual((await api.delete(`/api/v1/contacts/${other}/properties/${prop.id}`)).body, property404);
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties`)).body.data[0].role, 'owner');
  });

  test("another workspace's contact and property ids behave exactly like absent ones", async () => {
    const theirContact = await newContact(otherApi);
    const theirProp = (await otherApi.post(`/api/v1/contacts/${theirContact}/properties`, { address: { street: 'Private' } })).body.data;
    const mine = await newContact();
    const myProp = (await api.post(`/api/v1/contacts/${mine}/properties`, { address: {} })).body.data;

    const pairs: [string, () => Promise<{ status: number; body: unknown }>, () => Promise<{ status: number; body: unknown }>][] = [
      ['list', () => api.get(`/api/v1/contacts/${theirContact}/properties`), () => api.get('/api/v1/contacts/999998/properties')],
      ['create', () => api.post(`/api/v1/contacts/${theirContact}/properties`, { address: {} }), () => api.post('/api/v1/contacts/999998/properties', { address: {} })],
      ['put contact', () => api.put(`/api/v1/contacts/${theirContact}/properties/${theirProp.id}`, {}), () => api.put(`/api/v1/contacts/999998/properties/${theirProp.id}`, {})],
      ['put property', () => api.put(`/api/v1/contacts/${mine}/properties/${theirProp.id}`, { role: 'tenant' }), () => api.put(`/api/v1/contacts/${mine}/properties/999998`, { role: 'tenant' })],
      ['delete property', () => api.delete(`/api/v1/contacts/${mine}/properties/${theirProp.id}`), () => api.delete(`/api/v1/contacts/${mine}/properties/999998`)],
      ['delete contact', () => api.delete(`/api/v1/contacts/${theirContact}/properties/${myProp.id}`), () => api.delete(`/api/v1/contacts/999998/properties/${myProp.id}`)],
    ];
    for (const [name, foreign, absent] of pairs) {
      const f = await foreign();
      const a = await absent();
      assert.equal(f.status, 404, name);
      assert.deepEqual(f.body, a.body, name);
    }
    // Nothing of theirs leaks into our list, and their property is untouched.
    assert.equal((await api.get('/api/v1/properties?search=Private')).body.data.length, 0);
    const theirs = (await otherApi.get(`/api/v1/contacts/${theirContact}/properties`)).body.data;
    assert.deepEqual(theirs, [theirProp]);
  });

  test('scopes: properties:read and properties:write (403 texts)', async () => {
    const contactId = await newContact();
    const contactsOnly = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['contacts:read']));
    for (const res of [await contactsOnly.get('/api/v1/properties'), await contactsOnly.get(`/api/v1/contacts/${contactId}/properties`)]) {
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { success: false, error: 'Insufficient permissions. Required scope: properties:read' });
    }
    const readOnly = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['properties:read']));
    assert.equal((await readOnly.get('/api/v1/properties')).status, 200);
    const denied = await readOnly.post(`/api/v1/contacts/${contactId}/properties`, { address: {} });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, 'Insufficient permissions. Required scope: properties:write');
    assert.equal((await readOnly.put(`/api/v1/contacts/${contactId}/properties/1`, {})).status, 403);
    assert.equal((await readOnly.delete(`/api/v1/contacts/${contactId}/properties/1`)).status, 403);
    const writer = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['properties:write']));
    assert.equal((await writer.post(`/api/v1/contacts/${contactId}/properties`, { address: {} })).status, 201);
  });

  test('the OpenAPI document describes the routes', async () => {
    const doc = (await client(t.app).get('/api/v1/openapi.json')).body;
    assert.ok(doc.paths['/api/v1/properties']?.get);
    assert.ok(doc.paths['/api/v1/contacts/{id}/properties']?.post);
    assert.ok(doc.paths['/api/v1/contacts/{id}/properties/{propertyId}']?.put);
  });

  describe('lists', () => {
    let list: Client;
    let c1: number;
    let c2: number;
    const made: P[] = [];
    before(async () => {
      list = client(t.app, (await seedWorkspace(t.db)).token);
      c1 = await newContact(list);
      c2 = await newContact(list);
      for (const [contact, address, property_type] of [
        [c1, { street: '10 Oak Ave', city: 'Portland', state: 'OR', postal_code: '97201' }, 'apartment'],
        [c1, { street: '20 Pine St', street_2: 'Unit Zed', city: 'Salem', state: 'OR', postal_code: '97301', country: 'Narnia' }, 'land'],
        [c2, { street: '30 Birch Rd', city: 'Boise', state: 'ID', postal_code: '83702' }, 'apartment'],
      ] as const) {
        made.push((await list.post(`/api/v1/contacts/${contact}/properties`, { address, property_type })).body.data);
      }
      // Touch the first so modified_at differs from created_at order.
      await new Promise((r) => setTimeout(r, 5));
      await list.put(`/api/v1/contacts/${c1}/properties/${made[0].id}`, { address: { street_2: 'rear' } });
    });

    test('D1: newest first by default; contact_ids on every row', async () => {
      const res = await list.get('/api/v1/properties');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res), [made[2].id, made[1].id, made[0].id]);
      assert.deepEqual(res.body.data.map((p: P) => p.contact_ids), [[c2], [c1], [c1]]);
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
    });

    test('filter property_type; sort_by id, property_type, created_at, modified_at', async () => {
      assert.deepEqual(ids(await list.get('/api/v1/properties?property_type=apartment')), [made[2].id, made[0].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?property_type=commercial')), []);
      assert.deepEqual(ids(await list.get('/api/v1/properties?sort_by=id&sort_direction=asc')), made.map((p) => p.id));
      assert.deepEqual(ids(await list.get('/api/v1/properties?sort_by=created_at&sort_direction=asc')), made.map((p) => p.id));
      // Ties on property_type break by id in the same direction (D1).
      assert.deepEqual(ids(await list.get('/api/v1/properties?sort_by=property_type&sort_direction=asc')), [made[0].id, made[2].id, made[1].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?sort_by=property_type')), [made[1].id, made[2].id, made[0].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?sort_by=modified_at')), [made[0].id, made[2].id, made[1].id]);
    });

    test('search covers street, city, state and postal code, case-insensitive', async () => {
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=oak')), [made[0].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=SALEM')), [made[1].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=or')), [made[1].id, made[0].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=8370')), [made[2].id]);
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=Narnia')), [], 'country is not searched on the workspace list');
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=%25')), [], 'LIKE wildcards are literal');
      assert.deepEqual(ids(await list.get('/api/v1/properties?search=apartment&property_type=apartment')), []);
    });

    test('page and per_page', async () => {
      const p1 = await list.get('/api/v1/properties?per_page=2');
      assert.deepEqual(ids(p1), [made[2].id, made[1].id]);
      assert.deepEqual(p1.body.pagination, { page: 1, per_page: 2, total_pages: 2 });
      const p2 = await list.get('/api/v1/properties?per_page=2&page=2');
      assert.deepEqual(ids(p2), [made[0].id]);
      assert.deepEqual(p2.body.data[0].contact_ids, [c1]);
      const past = await list.get('/api/v1/properties?per_page=2&page=5');
      assert.deepEqual(past.body.data, []);
      assert.equal(past.body.pagination.total_pages, 2);
    });

    test("contact list: search by address, sort, pagination, only that contact's links", async () => {
      const all = await list.get(`/api/v1/contacts/${c1}/properties`);
      assert.deepEqual(ids(all), [made[1].id, made[0].id]);
      assert.deepEqual(all.body.data.map((p: P) => p.role), ['owner', 'owner']);
      assert.deepEqual(ids(await list.get(`/api/v1/contacts/${c1}/properties?search=pine`)), [made[1].id]);
      assert.deepEqual(ids(await list.get(`/api/v1/contacts/${c1}/properties?search=zed`)), [made[1].id], 'street_2 is part of the address');
      assert.deepEqual(ids(await list.get(`/api/v1/contacts/${c1}/properties?search=Boise`)), []);
      assert.deepEqual(ids(await list.get(`/api/v1/contacts/${c1}/properties?sort_by=id&sort_direction=asc`)), [made[0].id, made[1].id]);
      assert.deepEqual(ids(await list.get(`/api/v1/contacts/${c1}/properties?sort_by=modified_at`)), [made[0].id, made[1].id]);
      const p2 = await list.get(`/api/v1/contacts/${c1}/properties?per_page=1&page=2`);
      assert.deepEqual(ids(p2), [made[0].id]);
      assert.deepEqual(p2.body.pagination, { page: 2, per_page: 1, total_pages: 2 });
    });

    test('a full page of properties with several links each', async () => {
      const busy = client(t.app, (await seedWorkspace(t.db)).token);
      const contacts = [await newContact(busy), await newContact(busy), await newContact(busy)];
      for (let i = 0; i < 30; i++) {
        const p = (await busy.post(`/api/v1/contacts/${contacts[0]}/properties`, { address: { street: `${i} Loop` } })).body.data;
        if (i % 2) await busy.post(`/api/v1/contacts/${contacts[1]}/properties`, { property_id: p.id, role: 'tenant' });
        if (i % 3 === 0) await busy.post(`/api/v1/contacts/${contacts[2]}/properties`, { property_id: p.id, role: 'agent' });
      }
      const res = await busy.get('/api/v1/properties?per_page=100&sort_by=id&sort_direction=asc');
      assert.equal(res.body.data.length, 30);
      res.body.data.forEach((p: P, i: number) => {
        const expected = [contacts[0], ...(i % 2 ? [contacts[1]] : []), ...(i % 3 === 0 ? [contacts[2]] : [])].sort((a, b) => a - b);
        assert.deepEqual(p.contact_ids, expected, p.address.street);
      });
    });

    test('D4: bad query parameters are 400 Invalid request with details', async () => {
      for (const url of ['/api/v1/properties', `/api/v1/contacts/${c1}/properties`]) {
        for (const q of ['per_page=0', 'per_page=101', 'page=0', 'sort_by=street', 'sort_by=modified', 'sort_direction=up', `search=${'x'.repeat(201)}`]) {
          const res = await list.get(`${url}?${q}`);
          assert.equal(res.status, 400, `${url}?${q}`);
          assert.equal(res.body.error, 'Invalid request');
          assert.ok(res.body.details.length > 0);
        }
      }
      const bad = await list.get('/api/v1/properties?property_type=castle');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details[0].path, ['property_type']);
    });
  });

  test('F228: access_notes on create, update, the single GET, both lists and the job that names the property; up to 2,000 characters', async () => {
    const contactId = await newContact();
    const created = await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '9 Gate Rd' }, access_notes: 'Gate 1234#, friendly dog' });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.access_notes, 'Gate 1234#, friendly dog');
    const id = created.body.data.id as number;
    const single = await api.get(`/api/v1/contacts/${contactId}/properties/${id}`);
    assert.equal(single.status, 200);
    assert.equal(single.body.data.access_notes, 'Gate 1234#, friendly dog');
    assert.equal(single.body.data.role, 'owner');
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties`)).body.data[0].access_notes, 'Gate 1234#, friendly dog');
    const listed = (await api.get('/api/v1/properties?search=9%20Gate')).body.data.find((p: P) => p.id === id);
    assert.equal(listed.access_notes, 'Gate 1234#, friendly dog');
    const job = await api.post('/api/v1/jobs', { contact_id: contactId, property_id: id, name: 'Mow' });
    assert.equal(job.body.data.property.access_notes, 'Gate 1234#, friendly dog');
    assert.equal((await api.get(`/api/v1/jobs/${job.body.data.id}`)).body.data.property.access_notes, 'Gate 1234#, friendly dog');

    // Other fields leave them; a change replaces them; blank or null clears them.
    await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { address: { city: 'Oakton' } });
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties/${id}`)).body.data.access_notes, 'Gate 1234#, friendly dog');
    const changed = await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { access_notes: 'Key under the mat' });
    assert.equal(changed.body.data.access_notes, 'Key under the mat');
    assert.equal((await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { access_notes: '   ' })).body.data.access_notes, null);
    assert.equal((await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { access_notes: 'x'.repeat(2000) })).body.data.access_notes.length, 2000);
    assert.equal((await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { access_notes: null })).body.data.access_notes, null);
    const none = await api.post(`/api/v1/contacts/${contactId}/properties`, { address: { street: '10 Gate Rd' } });
    assert.equal(none.body.data.access_notes, null);

    // Too long or not text: 422 naming the field, nothing written.
    for (const bad of ['x'.repeat(2001), 12]) {
      const res = await api.put(`/api/v1/contacts/${contactId}/properties/${id}`, { access_notes: bad });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.details[0].path, ['access_notes']);
    }
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties/${id}`)).body.data.access_notes, null);

    // Another workspace's property is not found, and its contact's neither.
    assert.equal((await otherApi.get(`/api/v1/contacts/${contactId}/properties/${id}`)).status, 404);
    assert.equal((await api.get(`/api/v1/contacts/${contactId}/properties/999999`)).status, 404);
  });
});
