import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { backgroundTasks } from '../src/modules/background.ts';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';
import { killAll, type Proc, startWorker } from './processes.ts';
import { multipartBody } from './upload-fixtures.ts';
import { waitFor } from './webhook-receiver.ts';

// E28: an import survives its worker's death. A `fieldwork worker` is killed (SIGKILL)
// mid-import: every committed batch is whole (its clients and its progress together),
// and once the lease runs out another worker resumes after the last batch: each row
// imported exactly once.

let t: TestApp;
const procs: Proc[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-import-crash-'));
before(async () => {
  t = await buildTestApp({ STORAGE_DIR: dir });
});
after(async () => {
  await killAll(procs);
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a worker killed mid-import leaves whole batches; the next one resumes and imports each row once', { timeout: 240_000 }, async () => {
  const ws = await seedWorkspace(t.db);
  const rows = 6000;
  const csv = ['first_name,last_name,email,city', ...Array.from({ length: rows }, (_, i) => `First${i},Last${i},c${i}@example.test,Town ${i % 50}`)].join(
    '\r\n',
  );
  const form = multipartBody([
    { name: 'kind', value: 'clients' },
    { name: 'file', filename: 'c.csv', type: 'text/csv', data: Buffer.from(csv) },
  ]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/imports',
    payload: form.payload,
    headers: { authorization: `Bearer ${ws.token}`, 'content-type': form.contentType },
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json().data.id;
  const state = () => t.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const contacts = async () =>
    Number(
      (
        await t.db
          .selectFrom('contacts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('workspace_id', '=', ws.workspace.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  const worker = await startWorker({ DATABASE_URL: t.url, STORAGE_DIR: dir });
  procs.push(worker);
  await waitFor('the first batches', async () => (await state()).processed >= 500, 120_000);
  worker.child.kill('SIGKILL');
  await worker.exited;
  const dead = await state();
  assert.equal(dead.status, 'running', 'killed before the end');
  assert.ok(dead.processed < rows);
  assert.equal(dead.processed % 250, 0, 'only whole batches are committed');
  assert.equal(await contacts(), dead.processed, 'the committed clients are exactly the committed progress');
  assert.equal(dead.created, dead.processed);

  // The dead worker's lease runs out (made to, here), and another worker claims the import.
  await sql`update imports set locked_until = ${new Date(Date.now() - 1000).toISOString()} where id = ${id}`.execute(t.db);
  const next = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20, tasks: backgroundTasks(t.db, t.config) });
  next.start();
  try {
    await waitFor('the import to finish', async () => (await state()).status !== 'running', 180_000);
  } finally {
    await next.stop();
  }
  const done = await state();
  assert.deepEqual([done.status, done.rows, done.processed, done.created, done.updated, done.skipped, done.attempts], ['done', rows, rows, rows, 0, 0, 2]);
  assert.equal(await contacts(), rows);
  const emails = await t.db
    .selectFrom('contacts')
    .select((eb) => eb.fn.count<number>(sql`distinct email`).as('n'))
    .where('workspace_id', '=', ws.workspace.id)
    .executeTakeFirstOrThrow();
  assert.equal(Number(emails.n), rows, 'no row twice');
});
