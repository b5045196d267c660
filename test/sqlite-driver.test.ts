import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { SQLite, sqliteDriver } from '../src/db/sqlite-driver.ts';

// F243: each Node line gets the better-sqlite3 it can run. On Node 24, 12.x aborted the
// process when a garbage collection outside any JavaScript context collected a
// statement, within seconds of a fresh database's migrations; the suite runs on Node 20
// and on Node 24 (.ci/run), so this runs on both.

const root = path.resolve(import.meta.dirname, '..');
const major = Number(process.versions.node.split('.')[0]);

describe(`the SQLite driver on Node ${process.versions.node}`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-driver-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('Node 22 and later load the Node-API build (13.x), Node 20 the 12.x one', () => {
    assert.equal(sqliteDriver, major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
    const db = new SQLite(':memory:');
    assert.deepEqual(db.prepare('select sqlite_version() is not null as ok').get(), { ok: 1 });
    db.close();
  });

  test('a fresh database migrated, thousands of statements collected, checkpoints in a side thread: the process ends cleanly', () => {
    const script = `
      import { createDb } from './src/db/database.ts';
      import { migrate } from './src/db/migrate.ts';
      import { SQLite } from './src/db/sqlite-driver.ts';
      const database = createDb(${JSON.stringify(`sqlite:${path.join(dir, 'fresh.db')}`)}, { checkpointThread: true });
      await migrate(database);
      // Statements made and dropped: each is collected by some later garbage collection.
      const raw = new SQLite(${JSON.stringify(path.join(dir, 'fresh.db'))});
      for (let i = 0; i < 20000; i++) raw.prepare('select ' + i).get();
      raw.close();
      await new Promise((r) => setTimeout(r, 1500));
      await database.close();
      console.log('done');
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.signal, null, run.stderr);
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /Assertion failed/);
    assert.match(run.stdout, /done/);
  });
});
