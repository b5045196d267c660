import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RawBuilder, sql } from 'kysely';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { listOf, type ListSpec, paginate, sortByName } from './list-query.ts';
import { pendingRefs } from './related.ts';
import { shapedQuery } from './shaped.ts';
import { dialectOf } from './json-helpers.ts';

// F165: a list's statements are built and compiled once per shape, then run with new values.
describe('lists compiled once per shape (F165)', () => {
  let t: TestApp;
  let api: Client;
  let ws: number;
  const spec: ListSpec = {
    id: 'id',
    sort: sortByName(['id', 'first_name', 'last_name', 'created_at', 'updated_at']),
    search: { columns: ['first_name', 'last_name'], index: 'contacts_search' },
    rowCount: 'contacts',
  };

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    ws = seeded.workspace.id;
    api = client(t.app, seeded.token);
    for (let i = 0; i < 12; i++) {
      const r = await api.post('/api/v1/contacts', { first_name: `Shape${i}`, last_name: i % 2 ? 'Odd' : 'Even', type: i % 3 ? 'lead' : 'customer' });
      assert.equal(r.status, 201);
    }
  });
  after(() => t.close());

  type F = { ws: number; type?: string; last?: string[] };
  const filtered = (f: F) => {
    let qb = t.db.selectFrom('contacts').select(['id', 'first_name', 'last_name', 'type']).where('workspace_id', '=', f.ws);
    if (f.type) qb = qb.where('type', '=', f.type);
    if (f.last) qb = qb.where('last_name', 'in', f.last);
    return qb;
  };

  test('one build per shape; every page and value answers as paginate() does', async () => {
    let builds = 0;
    const list = listOf(spec, (db, f: F) => {
      builds++;
      let qb = db.selectFrom('contacts').select(['id', 'first_name', 'last_name', 'type']).where('workspace_id', '=', f.ws);
      if (f.type) qb = qb.where('type', '=', f.type);
      if (f.last) qb = qb.where('last_name', 'in', f.last);
      return qb;
    });
    const cases: [F, Parameters<typeof paginate>[2]][] = [
      [{ ws, type: 'lead' }, { per_page: 3, page: 2 }],
      [{ ws, type: 'customer' }, { per_page: 3, page: 2 }], // same shape, other value
      [{ ws, type: 'lead' }, { per_page: 3, page: 3 }], // same shape, other page
      [{ ws, type: 'lead' }, { per_page: 2, page: 3 }], // another page size: its own shape (the size is in the text)
      [{ ws }, { per_page: 5, page: 2 }], // the maintained count
      [{ ws }, { per_page: 5, page: 3 }],
      [{ ws, last: ['Odd'] }, { per_page: 4, page: 2, sort_by: 'first_name', sort_direction: 'asc' }],
      [{ ws, last: ['Even'] }, { per_page: 4, page: 1, sort_by: 'first_name', sort_direction: 'asc' }], // offset 0: its own shape
      [{ ws, last: ['Odd', 'Even'] }, { per_page: 4, page: 2, sort_by: 'first_name', sort_direction: 'asc' }], // two values: another shape
      [{ ws }, { search: 'shape1', updated_since: '2000-01-01T00:00:00Z', per_page: 2, page: 2 }],
      [{ ws }, { search: 'shape', updated_since: '2001-01-01T00:00:00+02:00', per_page: 2, page: 3 }],
    ];
    for (const [f, q] of cases) {
      const got = await list(t.db, f, q);
      const want = await paginate(t.db, filtered(f), q, spec);
      assert.deepEqual(got, want, JSON.stringify([f, q]));
      assert.ok(got.rows.length > 0, JSON.stringify([f, q]));
    }
    // Shapes: type (3 and 2 a page), workspace only, one last name page 2+, page 1, two last names, search with a bound.
    assert.equal(builds, 7);
    // Inside a transaction: the same shapes, its own uncommitted rows.
    await t.db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('contacts').values({ workspace_id: ws, first_name: 'Inside', last_name: 'Odd', type: 'lead', created_at: '2000-01-01T00:00:00.000Z', updated_at: '2000-01-01T00:00:00.000Z' }).execute();
        const got = await list(trx, { ws, last: ['Odd'] }, { per_page: 4, page: 3, sort_by: 'first_name', sort_direction: 'asc' });
        assert.deepEqual(got.rows, []);
        const first = await list(trx, { ws, last: ['Odd'] }, { per_page: 4, page: 1, sort_by: 'first_name', sort_direction: 'asc' });
        assert.ok(first.rows.some((r) => r.first_name === 'Inside'));
        throw new Error('rollback');
      })
      .catch((e: Error) => assert.equal(e.message, 'rollback'));
    assert.equal(builds, 7);
  });

  test('a value the builder transforms makes its shape uncacheable, never a stale answer', async () => {
    let builds = 0;
    const list = listOf(spec, (db, f: { ws: number; first: string }) => {
      builds++;
      return db.selectFrom('contacts').select(['id', 'first_name']).where('workspace_id', '=', f.ws).where(sql<boolean>`upper(first_name) = ${f.first.toUpperCase()}`);
    });
    const a = await list(t.db, { ws, first: 'shape3' }, { page: 2, per_page: 1 });
    const b = await list(t.db, { ws, first: 'shape4' }, { page: 1, per_page: 1 });
    const c = await list(t.db, { ws, first: 'shape5' }, { page: 1, per_page: 1 });
    assert.deepEqual(a.rows, []);
    assert.deepEqual(b.rows.map((r) => r.first_name), ['Shape4']);
    assert.deepEqual(c.rows.map((r) => r.first_name), ['Shape5']);
    assert.ok(builds >= 3);
  });

  test('a write\'s reference loader (pendingRefs) is built once per shape of the references named (F166)', async () => {
    let builds = 0;
    type V = { ws: number; contact: number | null | undefined; owner: string | null | undefined };
    const refsOf = (v: V) => pendingRefs(v.ws, { contact: ['contact', v.contact], owner: ['user', v.owner] });
    const load = shapedQuery((db, v: V) => {
      builds++;
      const p = refsOf(v);
      return db.selectFrom(p.from).select((eb) => p.select(eb, dialectOf(db)));
    });
    const contacts = await t.db.selectFrom('contacts').select(['id', 'first_name']).where('workspace_id', '=', ws).orderBy('id').limit(2).execute();
    const owner = (await t.db.selectFrom('users').select('user_id').where('workspace_id', '=', ws).executeTakeFirstOrThrow()).user_id;
    const read = async (v: V) => refsOf(v).read((await load(t.db, v))[0]!);
    const a = await read({ ws, contact: contacts[0]!.id, owner });
    const b = await read({ ws, contact: contacts[1]!.id, owner });
    assert.equal(a.refs.contact?.first_name, contacts[0]!.first_name);
    assert.equal(b.refs.contact?.first_name, contacts[1]!.first_name);
    assert.equal(b.refs.owner?.id, owner);
    assert.equal(builds, 1);
    const c = await read({ ws, contact: 999_999, owner: null }); // another shape: a null owner
    assert.deepEqual(c.missing, ['contact']);
    assert.equal(c.refs.owner, null);
    const d = await read({ ws, contact: contacts[0]!.id, owner: null });
    assert.deepEqual(d.missing, []);
    assert.equal(builds, 2);
  });

  test('a value with no shape of its own (an sql`` expression) is built at every run, never answered by another expression\'s statement', async () => {
    let builds = 0;
    const load = shapedQuery((db, v: { ws: number; pick: RawBuilder<string> }) => {
      builds++;
      return db.selectFrom('contacts').select(v.pick.as('picked')).where('workspace_id', '=', v.ws).limit(1);
    });
    const a = await load(t.db, { ws, pick: sql`'first'` });
    const b = await load(t.db, { ws, pick: sql`'second'` });
    assert.deepEqual([a[0]?.picked, b[0]?.picked], ['first', 'second']);
    assert.equal(builds, 2);
  });

  test('a write is compiled once per shape of its row: the same columns, new values, each row as given', async () => {
    let builds = 0;
    type Row = { workspace_id: number; name: string; description: string | null; rate: number; created_at: string; updated_at: string };
    const insert = shapedQuery((db, v: Row) => {
      builds++;
      return db.insertInto('tax_rates').values(v).returning(['id', 'name', 'description', 'rate', 'created_at', 'updated_at']);
    });
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const [a] = await insert(t.db, { workspace_id: ws, name: 'Shaped A', description: 'first', rate: 5, created_at: at(1), updated_at: at(2) });
    const [b] = await insert(t.db, { workspace_id: ws, name: 'Shaped B', description: 'second', rate: 7.5, created_at: at(3), updated_at: at(3) });
    assert.equal(builds, 1);
    const [c] = await insert(t.db, { workspace_id: ws, name: 'Shaped C', description: null, rate: 8, created_at: at(4), updated_at: at(5) });
    assert.equal(builds, 2, 'a null is another shape');
    assert.deepEqual(
      [a, b, c].map((r) => [r?.name, r?.description, Number(r?.rate), r?.created_at, r?.updated_at]),
      [
        ['Shaped A', 'first', 5, at(1), at(2)],
        ['Shaped B', 'second', 7.5, at(3), at(3)],
        ['Shaped C', null, 8, at(4), at(5)],
      ],
    );
    await t.db.deleteFrom('tax_rates').where('id', 'in', [a!.id, b!.id, c!.id]).execute();
  });
});
