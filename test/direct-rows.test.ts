import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
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
