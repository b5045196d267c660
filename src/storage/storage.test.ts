import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { filesUnder } from '../../test/upload-fixtures.ts';
import { LocalStorage, newKey } from './local-storage.ts';
import { PRIVATE_BUCKET } from './storage.ts';
import { queueDeletion, Sweeper } from './sweeper.ts';
import { UrlSigner } from './url-signer.ts';

// The storage layer on its own: the local driver, the signing key and the sweeper.
describe('storage', () => {
  let t: TestApp;
  let dir: string;
  let storage: LocalStorage;
  let workspaceId: number;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-storage-'));
    t = await buildTestApp({ STORAGE_DIR: dir });
    storage = new LocalStorage(dir, new UrlSigner(t.db), () => 'http://files.test');
    workspaceId = (await seedWorkspace(t.db)).workspace.id;
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('stage hashes while streaming and keeps at most maxBytes; put moves it into the bucket', async () => {
    const staged = await storage.stage(Readable.from([Buffer.from('hello '), Buffer.from('world')]), 100);
    assert.equal(staged.size, 11);
    assert.equal(staged.truncated, false);
    assert.equal(staged.sha256, 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');
    const key = newKey(workspaceId, 'txt');
    await storage.put(staged, PRIVATE_BUCKET, key);
    assert.equal(fs.existsSync(staged.file), false);
    await storage.discard(staged); // a no-op once put
    assert.equal(fs.readFileSync(path.join(dir, PRIVATE_BUCKET, key), 'utf8'), 'hello world');

    const capped = await storage.stage(Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), 100);
    assert.equal(capped.truncated, true);
    assert.equal(capped.size, 100);
    assert.equal(fs.statSync(capped.file).size, 100, 'nothing past the cap reaches the disk');
    await storage.discard(capped);
    assert.equal(fs.existsSync(capped.file), false);
  });

  test('keys never leave the root: anything but a server key is refused', async () => {
    for (const key of ['../secret', `${workspaceId}/../../x`, '/etc/passwd', `${workspaceId}/abc`, `${workspaceId}/${'0'.repeat(32)}/x`]) {
      assert.equal(await storage.open(PRIVATE_BUCKET, key), null, key);
      await assert.rejects(storage.remove(PRIVATE_BUCKET, key), /invalid storage key/);
    }
    for (const url of ['/files/..%2F..%2Fetc%2Fpasswd', '/files/public/..%2F..%2Fetc%2Fpasswd', '/files/public/../../etc/passwd']) {
      const res = await t.app.inject(url);
      assert.ok([403, 404].includes(res.statusCode), url);
    }
  });

  test('D20: the signing key is created once, in the database; every signer agrees', async () => {
    const fresh = await buildTestApp();
    try {
      const signers = [new UrlSigner(fresh.db), new UrlSigner(fresh.db), new UrlSigner(fresh.db)];
      const signatures = await Promise.all(signers.map((s) => s.sign('workspaces', '1/abc', 123)));
      assert.equal(new Set(signatures).size, 1);
      const rows = await fresh.db.selectFrom('service_secrets').selectAll().execute();
      assert.equal(rows.length, 1);
      assert.match(rows[0].value, /^[0-9a-f]{64}$/);
      const future = Math.floor(Date.now() / 1000) + 60;
      const sig = await signers[0].sign('workspaces', '1/abc', future);
      assert.equal(await signers[1].verify('workspaces', '1/abc', String(future), sig), true);
      assert.equal(await signers[1].verify('workspaces_pub', '1/abc', String(future), sig), false, 'bound to the bucket');
      assert.equal(await signers[1].verify('workspaces', '1/abd', String(future), sig), false, 'bound to the key');
    } finally {
      await fresh.close();
    }
  });

  test('the sweeper removes queued bytes (also those a crashed process left) and drops the queue rows', async () => {
    const keys = [newKey(workspaceId, 'bin'), newKey(workspaceId, 'bin')];
    for (const key of keys) await storage.put(await storage.stage(Readable.from([Buffer.from(key)]), 100), PRIVATE_BUCKET, key);
    const keep = newKey(workspaceId, 'bin');
    await storage.put(await storage.stage(Readable.from([Buffer.from('keep')]), 100), PRIVATE_BUCKET, keep);
    for (const key of keys) await queueDeletion(t.db, workspaceId, PRIVATE_BUCKET, key);
    await queueDeletion(t.db, workspaceId, PRIVATE_BUCKET, newKey(workspaceId, 'bin')); // already gone: fine
    await new Sweeper(t.db, storage).run();
    for (const key of keys) assert.equal(fs.existsSync(path.join(dir, PRIVATE_BUCKET, key)), false);
    assert.equal(fs.existsSync(path.join(dir, PRIVATE_BUCKET, keep)), true);
    assert.deepEqual(await t.db.selectFrom('file_deletions').selectAll().execute(), []);
  });

  test('staging leftovers older than the limit are cleaned, fresh ones kept', async () => {
    const old = await storage.stage(Readable.from([Buffer.from('old')]), 100);
    const fresh = await storage.stage(Readable.from([Buffer.from('fresh')]), 100);
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old.file, hourAgo, hourAgo);
    await storage.cleanStaging(3600_000);
    assert.equal(fs.existsSync(old.file), false);
    assert.equal(fs.existsSync(fresh.file), true);
    await storage.discard(fresh);
    assert.deepEqual(filesUnder(path.join(dir, '.staging')), []);
  });
});
