import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { SQLite } from '../src/db/sqlite-driver.ts';
import { sql } from 'kysely';
import { Checkpoints } from '../src/db/checkpoints.ts';
import { createDb } from '../src/db/database.ts';

// F200: while the API writes to SQLite, a task in a side thread (F201) copies the WAL's
// pages into the database file; the API's writer connection checkpoints only past a
// backstop. (SQLite only: the test makes its own files, on either database's run.)
describe('SQLite checkpoints off the API\'s thread', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-checkpoints-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const waitFor = async (what: string, ok: () => boolean, ms = 5_000) => {
    for (const end = Date.now() + ms; !ok(); ) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const size = (file: string) => fs.statSync(file).size;

  // 40 rows of 20 KB: ~200 pages in the WAL, below SQLite's own 1,000-page checkpoint, so
  // only the task copies them into the database file, which grows by them.
  const write = async (checkpointThread: boolean) => {
    const file = path.join(dir, `${checkpointThread ? 'with' : 'without'}.db`);
    const database = createDb(`sqlite:${file}`, { checkpointThread });
    await sql`create table t (id integer primary key, v text)`.execute(database.db);
    const before = size(file);
    for (let i = 0; i < 40; i++) await sql`insert into t (v) values (${'x'.repeat(20_000)})`.execute(database.db);
    return { database, file, before };
  };

  test("the API's writes start it; it copies their pages into the database file", async () => {
    const { database, file, before } = await write(true);
    assert.equal(database.checkpoints?.running, true);
    await waitFor('the pages in the database file', () => size(file) >= before + 40 * 20_000);
    await database.close();
    assert.equal(database.checkpoints?.running, false, 'closing the database ends it');
  });

  test('without it, the same writes stay in the WAL (what the test above tells apart)', async () => {
    const { database, file, before } = await write(false);
    assert.equal(database.checkpoints, undefined);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(size(file) < before + 40 * 20_000, `${size(file)} bytes`);
    await database.close();
  });

  test('the writer checkpoints only past the backstop while it runs; it ends when the WAL is still, and a write starts it again', async () => {
    const file = path.join(dir, 'idle.db');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table t (id integer primary key, v text)');
    const autocheckpoint = () => writer.pragma('wal_autocheckpoint', { simple: true });
    const checkpoints = new Checkpoints(file, writer, 300);
    assert.equal(autocheckpoint(), 1000);
    checkpoints.wake();
    assert.equal(checkpoints.running, true);
    assert.equal(autocheckpoint(), 10_000);
    writer.prepare('insert into t (v) values (?)').run('x'.repeat(50_000));
    await waitFor('the task to end, idle', () => !checkpoints.running);
    assert.equal(autocheckpoint(), 1000, "SQLite's own checkpoints again");
    checkpoints.wake();
    assert.equal(checkpoints.running, true);
    await checkpoints.close();
    assert.equal(checkpoints.running, false);
    writer.close();
  });

  test("a task that fails leaves the writer's own checkpoints and is not started again", async () => {
    const writer = new SQLite(path.join(dir, 'writer.db'));
    const logged: string[] = [];
    const error = console.error;
    console.error = (line: string) => void logged.push(line);
    try {
      // The task's file is in a folder that does not exist: opening it fails in the side thread.
      const checkpoints = new Checkpoints(path.join(dir, 'missing', 'x.db'), writer);
      checkpoints.wake();
      assert.equal(checkpoints.running, true);
      assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), 10_000);
      await waitFor('the task to fail', () => !checkpoints.running);
      assert.equal(writer.pragma('wal_autocheckpoint', { simple: true }), 1_000);
      checkpoints.wake();
      assert.equal(checkpoints.running, false);
      assert.equal(logged.length, 1);
      assert.match(logged[0]!, /^SQLite checkpoints: /);
      await checkpoints.close();
    } finally {
      console.error = error;
      writer.close();
    }
  });
});
