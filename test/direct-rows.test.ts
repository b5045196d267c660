import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { directReadOf } from '../src/db/database.ts';
import { backend, buildTestApp, type TestApp } from './helpers.ts';

// F179, F195: the direct reads (prepared and shaped statements outside a transaction)
// read rows as arrays and make objects by a function compiled per statement. They give
// the objects the driver gives through Kysely, key for key and in the same order,
// a column named twice included (its last value).
let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

test(`direct reads give the driver's own row objects (${backend})`, async () => {
  const read = directReadOf(t.db);
  assert.ok(read, 'a file or server database has the direct path');
  const text =
    backend === 'postgres'
      ? `select 1 as id, 'a' as name, '{"x":1}'::jsonb as info, count(*) as n, null as gone, 2 as id from (values (1), (2)) v(x)`
      : `select 1 as id, 'a' as name, '{"x":1}' as info, count(*) as n, null as gone, 2 as id from (select 1 union all select 2)`;
  const direct = (await read('fieldwork_test_direct_rows', text, [])) as Record<string, unknown>[];
  const driver = (await sql.raw<Record<string, unknown>>(text).execute(t.db)).rows;
  assert.deepEqual(direct, driver);
  assert.deepEqual(direct.map((r) => Object.keys(r)), driver.map((r) => Object.keys(r)));
  assert.deepEqual(direct, [{ id: 2, name: 'a', info: backend === 'postgres' ? '{"x": 1}' : '{"x":1}', n: 2, gone: null }]);
  const none = (await read('fieldwork_test_direct_none', `select 1 as id where 1 = 0`, [])) as unknown[];
  assert.deepEqual(none, []);
});

// F196: Kysely's own statements on PostgreSQL (the named ones: the hub's pages, every
// transaction's reads, RETURNING) are read as arrays and made objects the same way.
// Their rows equal those pg makes itself on a plain client of the same database.
test(`Kysely's rows on PostgreSQL equal pg's own objects (${backend})`, { skip: backend !== 'postgres' }, async () => {
  const pg = (await import('pg')).default;
  const plain = new pg.Client({ connectionString: t.url });
  await plain.connect();
  try {
    const text = `select v.x as id, 'n' || v.x as name, v.x > 1 as big, null as gone, timestamptz '2026-01-02T03:04:05Z' as at, v.x * 10 as id from (values (1), (2), (3)) v(x) where v.x >= $1 order by v.x`;
    const own = (await plain.query(text, [2])).rows;
    const viaKysely = async () => (await t.db.executeQuery(CompiledQuery.raw(text, [2]))).rows as Record<string, unknown>[];
    // Twice: the first run compiles the statement's row function, the second reuses it.
    for (const rows of [await viaKysely(), await viaKysely()]) {
      assert.deepEqual(rows, own);
      assert.deepEqual(rows.map((r) => Object.keys(r)), own.map((r) => Object.keys(r)));
    }
    assert.deepEqual(own.map((r) => [r.id, r.name, r.big, r.gone]), [[20, 'n2', true, null], [30, 'n3', true, null]]);
    // No rows, and rows returned from a write inside a transaction.
    assert.deepEqual((await sql`select 1 as id where 1 = ${0}`.execute(t.db)).rows, []);
    const returned = await t.db.transaction().execute(async (trx) => (await sql<{ a: number; b: string }>`select ${5}::int as a, 'x' as b`.execute(trx)).rows);
    assert.deepEqual(returned, [{ a: 5, b: 'x' }]);
  } finally {
    await plain.end();
  }
});
