import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

describe('contacts', () => {
  let t: TestApp;
  let api: Client;
  let ownerId: string;
  let workspaceId: number;

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    api = client(t.app, seeded.token);
    ownerId = seeded.owner.user_id;
    workspaceId = seeded.workspace.id;
  });
  after(() => t.close());

  test('F300: a contact created with its first property gets both in one write; a bad property creates neither', async () => {
    const count = async () => Number((await t.db.selectFrom('contacts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const bad = await api.post('/api/v1/contacts', { first_name: 'Half', last_name: 'Made', property: { address: { street: '1 Elm St', postal_code: 'x'.repeat(40) } } });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.details.map((d: { path: string[] }) => d.path.join('.')), ['property.address.postal_code']);
    assert.equal(await count(), before, 'no contact without its property');
    const res = await api.post('/api/v1/contacts', { first_name: 'Whole', last_name: 'Client', property: { address: { street: '1 Elm St', city: 'Springfield' }, access_notes: 'Gate 1234' } });
    assert.equal(res.status, 201);
    const props = (await api.get(`/api/v1/contacts/${res.body.data.id}/properties`)).body.data;
    assert.equal(props.length, 1);
    assert.deepEqual([props[0].address.street, props[0].address.city, props[0].address.state, props[0].role, props[0].access_notes], ['1 Elm St', 'Springfield', '', 'owner', 'Gate 1234']);
  });

  test('create answers 201 with every field, defaults and nulls', async () => {
    const res = await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', info: { sms_consent: { opt_in: true } } });
    assert.equal(res.status, 201);
    assert.equal(res.body.success, true);
    const c = res.body.data;
    assert.equal(c.first_name, 'Ada');
    assert.equal(c.type, 'none');
    assert.equal(c.phone, null);
    assert.equal(c.title, null);
    assert.equal(c.workspace_id, workspaceId);
    assert.deepEqual(c.info, { sms_consent: { opt_in: true } });
    assert.equal(c.custom_fields, null);
    assert.match(c.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(c.created_by, { id: ownerId, first_name: 'Olive', last_name: 'Owner' });
    assert.equal(c.owner, null);
  });

  test('single GET expands owner and created_by', async () => {
    const member = await seedUser(t.db, workspaceId);
    const created = await api.post('/api/v1/contacts', { first_name: 'Bo', last_name: 'Brown', owner_id: member.user_id });
    const res = await api.get(`/api/v1/contacts/${created.body.data.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.owner, { id: member.user_id, first_name: member.first_name, last_name: member.last_name });
    assert.equal(res.body.data.created_by.id, ownerId);
  });

  test('validation: 422 Validation failed with details (D4), nothing written', async () => {
    const before = (await api.get('/api/v1/contacts?per_page=100')).body.data.length;
    for (const body of [
      { last_name: 'x' },
      { first_name: 'a', last_name: 'b', type: 'alien' },
      { first_name: 'a', last_name: 'b', title: 'sir' },
      { first_name: 'a', last_name: 'b', email: 'not-an-email' },
      { first_name: 123, last_name: 'b' },
      { first_name: 'x'.repeat(101), last_name: 'b' },
      { first_name: 'a', last_name: 'b', owner_id: 'not-a-uuid' },
    ]) {
      const res = await api.post('/api/v1/contacts', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Validation failed');
      assert.ok(Array.isArray(res.body.details) && res.body.details.length > 0);
      assert.ok(Array.isArray(res.body.details[0].path));
    }
    const missing = await api.post('/api/v1/contacts', { last_name: 'x' });
    assert.deepEqual(missing.body.details[0].path, ['first_name']);
    assert.equal((await api.get('/api/v1/contacts?per_page=100')).body.data.length, before);
  });

  test('D11: owner_id of a user outside the workspace is 422 naming the field', async () => {
    const other = await seedWorkspace(t.db);
    const res = await api.post('/api/v1/contacts', { first_name: 'a', last_name: 'b', owner_id: other.owner.user_id });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.details[0].path, ['owner_id']);
  });

  test('update is partial; unknown fields are ignored (D5)', async () => {
    const { body } = await api.post('/api/v1/contacts', { first_name: 'Cy', last_name: 'Cole', phone: '+15550001' });
    const res = await api.put(`/api/v1/contacts/${body.data.id}`, { company: 'Cole Co', bogus: 1 });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.company, 'Cole Co');
    assert.equal(res.body.data.phone, '+15550001');
    assert.equal(res.body.data.first_name, 'Cy');
    assert.equal('bogus' in res.body.data, false);
  });

  test('delete is permanent; then 404 Contact not found', async () => {
    const { body } = await api.post('/api/v1/contacts', { first_name: 'Del', last_name: 'Me' });
    const del = await api.delete(`/api/v1/contacts/${body.data.id}`);
    assert.deepEqual(del.body, { success: true, data: { deleted: true } });
    const res = await api.get(`/api/v1/contacts/${body.data.id}`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { success: false, error: 'Contact not found' });
    assert.equal((await api.delete(`/api/v1/contacts/${body.data.id}`)).status, 404);
  });

  test('D5: non-integer and out-of-range ids are 404 Contact not found', async () => {
    for (const id of ['abc', '1.5', '0', '99999999999']) {
      const res = await api.get(`/api/v1/contacts/${id}`);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error, 'Contact not found');
    }
  });

  test('D5: malformed JSON is 400 Invalid JSON body', async () => {
    const res = await api.post('/api/v1/contacts', '{"first_name": ');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { success: false, error: 'Invalid JSON body' });
  });

  describe('list', () => {
    let ids: number[] = [];
    before(async () => {
      const fresh = await seedWorkspace(t.db);
      api = client(t.app, fresh.token);
      ids = [];
      for (const [first, last, type, email] of [
        ['Zed', 'Alpha', 'customer', 'zed@a.test'],
        ['Amy', 'Beta', 'lead', 'amy@b.test'],
        ['Max', 'Gamma', 'customer', 'max@c.test'],
      ]) ids.push((await api.post('/api/v1/contacts', { first_name: first, last_name: last, type, email })).body.data.id);
    });

    test('D1: newest first by default, ties by id; pagination integers', async () => {
      const res = await api.get('/api/v1/contacts');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((c: { id: number }) => c.id), [...ids].reverse());
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
      assert.equal('owner' in res.body.data[0], false);
    });

    test('page and per_page', async () => {
      const p2 = await api.get('/api/v1/contacts?per_page=2&page=2');
      assert.deepEqual(p2.body.data.map((c: { id: number }) => c.id), [ids[0]]);
      assert.deepEqual(p2.body.pagination, { page: 2, per_page: 2, total_pages: 2 });
      const past = await api.get('/api/v1/contacts?per_page=2&page=9');
      assert.deepEqual(past.body.data, []);
      assert.equal(past.body.pagination.total_pages, 2);
    });

    test('sort_by and sort_direction', async () => {
      const res = await api.get('/api/v1/contacts?sort_by=first_name&sort_direction=asc');
      assert.deepEqual(res.body.data.map((c: { first_name: string }) => c.first_name), ['Amy', 'Max', 'Zed']);
    });

    test('filters: type, search over name, email and full name', async () => {
      assert.equal((await api.get('/api/v1/contacts?type=customer')).body.data.length, 2);
      assert.deepEqual((await api.get('/api/v1/contacts?search=gAmM')).body.data.map((c: { id: number }) => c.id), [ids[2]]);
      assert.deepEqual((await api.get('/api/v1/contacts?search=amy@')).body.data.map((c: { id: number }) => c.id), [ids[1]]);
      assert.deepEqual((await api.get('/api/v1/contacts?search=Zed%20Alpha')).body.data.map((c: { id: number }) => c.id), [ids[0]]);
      assert.equal((await api.get('/api/v1/contacts?search=%25')).body.data.length, 0, 'LIKE wildcards are literal');
    });

    test('D4: bad query parameters are 400 Invalid request with details', async () => {
      for (const q of ['per_page=0', 'per_page=101', 'sort_by=password', 'sort_direction=up', 'type=alien', 'page=0', 'owner_id=x']) {
        const res = await api.get(`/api/v1/contacts?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.error, 'Invalid request');
        assert.ok(res.body.details.length > 0);
      }
    });
  });
});
