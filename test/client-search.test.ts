import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';

// A13 (F220): the lists of requests, quotes, jobs and invoices carry each document's client
// and find documents by the client's first name, last name, full name or company, through
// the contacts' trigram index (migration 0026) for terms of 3 characters or more.

const LISTS = ['requests', 'quotes', 'jobs', 'invoices'] as const;

describe('document lists: the client column and search by client', () => {
  let t: TestApp;
  let api: Client;
  let other: Client;
  const ids: Record<string, { ada: number; bob: number; none: number }> = {};
  let adaId: number;

  /** One request, quote, job and invoice for the contact (null: none), named `name`. */
  async function documentsFor(c: Client, contactId: number | null, name: string) {
    const out: Record<string, number> = {};
    for (const kind of ['requests', 'quotes', 'jobs'] as const) {
      const res = await c.post(`/api/v1/${kind}`, { contact_id: contactId, name });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      out[kind] = res.body.data.id;
    }
    const invoice = await c.post(`/api/v1/jobs/${out.jobs}/create-invoice`);
    assert.equal(invoice.status, 201, JSON.stringify(invoice.body));
    out.invoices = invoice.body.data.id;
    return out;
  }

  before(async () => {
    t = await buildTestApp();
    api = client(t.app, (await seedWorkspace(t.db)).token);
    other = client(t.app, (await seedWorkspace(t.db)).token);
    adaId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', company: 'Analytical Engines' })).body.data.id;
    const bobId = (await api.post('/api/v1/contacts', { first_name: 'Bob', last_name: 'Builder', company: 'Yes We Can' })).body.data.id;
    const ada = await documentsFor(api, adaId, 'Gutter clean');
    const bob = await documentsFor(api, bobId, 'Window wash');
    const none = await documentsFor(api, null, 'Lovelace street lamp');
    for (const kind of LISTS) ids[kind] = { ada: ada[kind]!, bob: bob[kind]!, none: none[kind]! };
    // Another workspace's Ada Lovelace and her documents stay out of every answer.
    const theirAda = (await other.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', company: 'Analytical Engines' })).body.data.id;
    await documentsFor(other, theirAda, 'Theirs');
  });
  after(() => t.close());

  const found = async (kind: string, search: string) => {
    const res = await api.get(`/api/v1/${kind}?search=${encodeURIComponent(search)}&per_page=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
  };

  for (const kind of LISTS) {
    test(`${kind}: with expand=contact each item names its client (id, first and last name), or null; without it, no contact field`, async () => {
      const res = await api.get(`/api/v1/${kind}?per_page=100&expand=contact`);
      const byId = new Map((res.body.data as { id: number; contact: unknown }[]).map((r) => [r.id, r.contact]));
      assert.deepEqual(byId.get(ids[kind]!.ada), { id: adaId, first_name: 'Ada', last_name: 'Lovelace' });
      assert.equal(byId.get(ids[kind]!.none), null);
      // With a search too (another compiled shape of the list).
      const searched = await api.get(`/api/v1/${kind}?search=lovelace&expand=contact`);
      assert.deepEqual(searched.body.data.find((r: { id: number }) => r.id === ids[kind]!.ada).contact, { id: adaId, first_name: 'Ada', last_name: 'Lovelace' });
      const plain = await api.get(`/api/v1/${kind}?per_page=100`);
      assert.ok(plain.body.data.every((r: object) => !('contact' in r)));
      const bad = await api.get(`/api/v1/${kind}?expand=owner`);
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(bad.body), /expand/);
    });

    test(`${kind}: search finds the documents by the client's last name, full name, company and a short first name; still by their own name`, async () => {
      const { ada, bob, none } = ids[kind]!;
      // "lovelace" also matches the unlinked document's own title: both, in one answer.
      assert.deepEqual(await found(kind, 'LOVELACE'), [ada, none].sort((a, b) => a - b));
      assert.deepEqual(await found(kind, 'ada lov'), [ada]);
      assert.deepEqual(await found(kind, 'analytical eng'), [ada]);
      assert.deepEqual(await found(kind, 'Ad'), [ada]); // under 3 characters: no trigram, the row's own contact
      assert.deepEqual(await found(kind, 'builder'), [bob]);
      assert.deepEqual(await found(kind, 'window'), [bob]);
      assert.deepEqual(await found(kind, 'nobody here'), []);
      // A LIKE wildcard in the term is a character to match, not a wildcard.
      assert.deepEqual(await found(kind, 'a%a'), []);
    });
  }

  test('a renamed client is found by the new name at once (the index follows the contact)', async () => {
    assert.equal((await api.put(`/api/v1/contacts/${adaId}`, { company: 'Difference Engines' })).status, 200);
    assert.deepEqual(await found('quotes', 'difference'), [ids.quotes!.ada]);
    assert.deepEqual(await found('quotes', 'analytical'), []);
  });

  test('a term of 3+ characters reads the contacts through their trigram index; a shorter one reads the row\'s contact by its id', async () => {
    t.queries.length = 0;
    await found('jobs', 'lovelace');
    const long = t.queries.find((q) => q.includes('from "jobs"')) ?? '';
    assert.match(long, /"jobs"\."contact_id" in \(select c\.id from contacts c where c\.id in \(select rowid from contacts_search where doc like/, long);
    t.queries.length = 0;
    await found('jobs', 'lo');
    const short = t.queries.find((q) => q.includes('from "jobs"')) ?? '';
    assert.doesNotMatch(short, /contacts_search/, short);
    assert.match(short, /exists \(select 1 from contacts c where c\.id = "jobs"\."contact_id" and c\.workspace_id = "jobs"\."workspace_id"/, short);
  });
});
