import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SQLite } from '../src/db/sqlite-driver.ts';
import { createContact } from '../src/modules/contacts/contacts.service.ts';
import { backend, buildTestApp, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';

// `fieldwork backup --to FILE` (docs/operations.md "Backup"): SQLite only, through
// the online backup API, consistent while the service writes.

describe('fieldwork backup', () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await buildTestApp();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-backup-'));
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('SQLite: a copy taken while writes run opens and passes integrity_check', { skip: backend !== 'sqlite' && 'SQLite only (PostgreSQL: see the refusal test)' }, async () => {
    const ws = await seedWorkspace(t.db);
    const to = path.join(dir, 'copy.db');
    // Writes keep committing, one transaction each, for the whole time the backup runs.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await t.db.transaction().execute((trx) => createContact(trx, ws.workspace.id, ws.owner.user_id, { first_name: 'Backup', last_name: `Load ${written}` }));
        written++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const run = await spawnCli(t.url, ['backup', '--to', to, '--json']);
    writing = false;
    await writer;
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.replace(/^\(node.*\n|^\(Use .*\n/gm, ''), '');
    const out = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(out), ['backup']);
    assert.equal(out.backup.path, to);
    assert.equal(out.backup.bytes, fs.statSync(to).size);
    assert.ok(written > 0, 'writes ran during the backup');

    const copy = new SQLite(to, { readonly: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(copy.pragma('foreign_key_check'), []);
      const n = (copy.prepare('select count(*) as n from contacts where workspace_id = ?').get(ws.workspace.id) as { n: number }).n;
      assert.ok(n <= written, `${n} contacts in the copy, ${written} written`);
    } finally {
      copy.close();
    }
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.includes('.partial-')),
      [],
      'no partial file left behind',
    );
  });

  test('a path that cannot be written: a clear error, exit 1, nothing created', { skip: backend !== 'sqlite' && 'SQLite only' }, async () => {
    const notADir = path.join(dir, 'plain-file');
    fs.writeFileSync(notADir, 'x');
    const run = await spawnCli(t.url, ['backup', '--to', path.join(notADir, 'copy.db'), '--json']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /error: backup: cannot write .*plain-file\/copy\.db: ENOTDIR/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');

    const missingDir = await spawnCli(t.url, ['backup', '--to', path.join(dir, 'no', 'such', 'dir.db')]);
    assert.equal(missingDir.code, 1);
    assert.match(missingDir.stderr, /cannot write .*: ENOENT/);
  });

  test('PostgreSQL: refused with a pointer to pg_dump', { skip: backend !== 'postgres' && 'PostgreSQL only' }, async () => {
    const to = path.join(dir, 'pg.db');
    const run = await spawnCli(t.url, ['backup', '--to', to, '--json']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /error: backup copies SQLite databases only; on PostgreSQL use pg_dump/);
    assert.equal(fs.existsSync(to), false);
  });
});
