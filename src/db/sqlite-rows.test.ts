import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SQLite, type SQLiteDatabase } from './sqlite-driver.ts';
import { kyselyStatement, rowReader } from './sqlite-rows.ts';

// F179: SQLite rows read as arrays and made objects by a function compiled per statement
// give the same objects better-sqlite3 gives, key for key and in the same order.
const open = () => {
  const db = new SQLite(':memory:');
  db.exec("create table t (id integer primary key, name text, info text, n real); insert into t values (1, 'a', '{\"x\":1}', 1.5), (2, null, null, null)");
  return db;
};
const same = (db: SQLiteDatabase, text: string, parameters: unknown[] = []) => {
  const rows = rowReader(db.prepare(text))(parameters);
  const expected = db.prepare(text).all(...parameters);
  assert.deepEqual(rows, expected);
  assert.deepEqual(
    rows.map((row) => Object.keys(row as object)),
    expected.map((row) => Object.keys(row as object)),
  );
  return rows;
};

test('rows read through arrays equal the objects better-sqlite3 builds', () => {
  const db = open();
  assert.deepEqual(same(db, 'select * from t order by id'), [
    { id: 1, name: 'a', info: '{"x":1}', n: 1.5 },
    { id: 2, name: null, info: null, n: null },
  ]);
  assert.deepEqual(same(db, 'select * from t where id = ?', [3]), []);
  same(db, 'select id, count(*), \'a"b\' as "q""uote", 1 as "1", name as "it\'\'s" from t group by id');
  // Two columns of one name: the last one's value, as better-sqlite3 keeps it.
  assert.deepEqual(same(db, 'select id as x, name as x from t where id = 1'), [{ x: 'a' }]);
});

test("Kysely's statements: reads through arrays, writes and iteration as before", () => {
  const db = open();
  const insert = kyselyStatement(db.prepare('insert into t (name) values (?) returning id, name'));
  assert.equal(insert.reader, true);
  assert.deepEqual(insert.all(['c']), [{ id: 3, name: 'c' }]);
  const update = kyselyStatement(db.prepare('update t set name = ? where id = ?'));
  assert.equal(update.reader, false);
  assert.equal(update.run(['d', 3]).changes, 1);
  const select = kyselyStatement(db.prepare('select id, name from t where id >= ? order by id'));
  assert.deepEqual(
    [...select.iterate([2])],
    [
      { id: 2, name: null },
      { id: 3, name: 'd' },
    ],
  );
});
