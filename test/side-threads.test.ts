import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, mock, test } from 'node:test';
import { sql } from 'kysely';
import { SideThreads, sideThreads, TaskError } from '../src/kernel/side-threads.ts';
import { createDb } from '../src/db/database.ts';
import { drawInPool } from '../src/modules/pdf/pdf-pool.ts';
import { documentView } from '../src/domain/document-view.ts';

// F201: the API's off-loop work (PDFs, SQLite's checkpoints) shares one pool of side
// threads: jobs one at a time per thread, standing tasks beside them.
describe('side threads', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-side-threads-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const task = (name: string, code: string) => {
    const file = path.join(dir, `${name}.mjs`);
    fs.writeFileSync(file, code);
    return pathToFileURL(file);
  };
  const double = task('double', 'export default (n) => n * 2;');
  const fails = task('fails', "export default () => { throw new Error('no such file'); };");
  const exits = task('exits', 'export default () => process.exit(3);');
  // Stands until stopped, then answers nothing: its `done` resolves.
  const waits = task('waits', "export default (_input, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve()));");
  const waitFor = async (what: string, ok: () => boolean, ms = 5_000) => {
    for (const end = Date.now() + ms; !ok(); ) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  test("a job's output comes back from a thread that is not the API's; a task that throws rejects with a TaskError", async () => {
    const pool = new SideThreads(1, 200);
    const { output, threadId } = await pool.run<number>(double, 21);
    assert.equal(output, 42);
    assert.ok(threadId > 0);
    await assert.rejects(pool.run(fails, null), (err: Error) => err instanceof TaskError && err.message === 'no such file');
    assert.equal((await pool.run<number>(double, 2)).output, 4, 'the thread still serves');
    await waitFor('the idle thread to end', () => pool.threads === 0);
  });

  test('a standing task runs beside the jobs of the same thread, and keeps it from ending until stopped', async () => {
    const pool = new SideThreads(1, 100);
    const standing = pool.stand(waits, null);
    assert.equal(pool.threads, 1);
    // A job is not queued behind the standing task, and no second thread starts for it.
    assert.equal((await pool.run<number>(double, 5)).output, 10);
    assert.equal(pool.threads, 1);
    await new Promise((r) => setTimeout(r, 300)); // three idle periods
    assert.equal(pool.threads, 1, 'a standing task keeps its thread');
    standing.stop();
    await standing.done;
    await waitFor('the thread to end once idle', () => pool.threads === 0);
  });

  test('a standing task stopped before its module has loaded never starts, and ends', { timeout: 10_000 }, async () => {
    const pool = new SideThreads(1, 60_000);
    const standing = pool.stand(waits, null); // it would wait for an abort event that has gone by
    standing.stop();
    await standing.done;
  });

  test('work that comes while an idle thread is ending goes to a new thread, not the ending one', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const pool = new SideThreads(1, 1_000);
      assert.equal((await pool.run<number>(double, 1)).output, 2);
      mock.timers.tick(1_000); // the idle thread's time is up: it is told to end
      assert.equal(pool.threads, 0, 'out of the pool at once');
      assert.equal((await pool.run<number>(double, 3)).output, 6);
      assert.equal(pool.threads, 1);
    } finally {
      mock.timers.reset();
    }
  });

  test("a thread that ends fails its job and its standing tasks, with an error that is not the task's", async () => {
    const pool = new SideThreads(1, 60_000);
    const standing = pool.stand(waits, null);
    await assert.rejects(pool.run(exits, null), /side thread exited with code 3/);
    await assert.rejects(standing.done, (err: Error) => !(err instanceof TaskError) && /exited/.test(err.message));
    assert.equal(pool.threads, 0);
    assert.equal((await pool.run<number>(double, 1)).output, 2, 'the next job starts a thread');
    await pool.run(exits, null).catch(() => {});
  });

  test('SQLite checkpoints and PDFs share one side thread of the process', async () => {
    // Threads of this process, as Linux counts them.
    const osThreads = () => fs.readdirSync('/proc/self/task').length;
    const file = path.join(dir, 'shared.db');
    const database = createDb(`sqlite:${file}`, { checkpointThread: true });
    try {
      await sql`create table t (id integer primary key, v text)`.execute(database.db);
      const size = fs.statSync(file).size;
      await sql`insert into t (v) values (${'x'.repeat(100_000)})`.execute(database.db);
      assert.equal(database.checkpoints?.running, true);
      // The row's pages copied into the file: the task runs, in a thread that has started.
      await waitFor('the checkpoints to run', () => fs.statSync(file).size > size + 100_000);
      assert.equal(sideThreads().threads, 1);
      await fs.promises.stat(dir); // libuv's thread pool (its 4 threads start with its first use) is up before counting
      const before = osThreads();
      const sheet = { title: 'Quote #1', changedAt: '2026-03-05T14:30:00.000Z', workspaceName: 'W', businessLines: [], contactName: '', name: null, facts: [], view: documentView({ line_items: [], discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, total: 0 }, 'USD'), after: [], notes: [] };
      const { pdf } = await drawInPool(sheet);
      assert.ok(pdf.subarray(0, 5).equals(Buffer.from('%PDF-')));
      assert.equal(sideThreads().threads, 1, 'the PDF was drawn in the thread the checkpoints run in');
      assert.equal(osThreads(), before, 'no thread started for the PDF');
    } finally {
      await database.close();
    }
    assert.equal(database.checkpoints?.running, false);
  });
});
