import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { STORAGE_DRIVERS, type TestStore, testStore } from '../../test/storage-drivers.ts';
import { loadConfig, parseStorageUrl } from '../config.ts';
import { storageFromConfig } from './drivers.ts';
import { newKey, PRIVATE_BUCKET, PUBLIC_BUCKET, type Storage } from './storage.ts';
import { queueDeletion, Sweeper } from './sweeper.ts';
import { UrlSigner } from './url-signer.ts';

// The storage layer on its own: each driver (the local directory and an S3-compatible
// bucket, E30), the signing key and the sweeper.
for (const driver of STORAGE_DRIVERS) {
  describe(`storage (${driver})`, () => {
    let t: TestApp;
    let store: TestStore;
    let storage: Storage;
    let workspaceId: number;
    const read = async (bucket: typeof PRIVATE_BUCKET | typeof PUBLIC_BUCKET, key: string) => {
      const object = await storage.open(bucket, key);
      return object && { size: object.size, text: await text(object.stream) };
    };

    before(async () => {
      store = await testStore(driver);
      t = await buildTestApp(store.env);
      storage = storageFromConfig(t.config, new UrlSigner(t.db), () => 'http://files.test');
      workspaceId = (await seedWorkspace(t.db)).workspace.id;
    });
    after(async () => {
      await t.close();
      await store.close();
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
      assert.deepEqual(await read(PRIVATE_BUCKET, key), { size: 11, text: 'hello world' });
      assert.equal(await storage.open(PUBLIC_BUCKET, key), null, 'one bucket does not see the other');
      assert.deepEqual(await store.objects(), [`${PRIVATE_BUCKET}/${key}`]);

      const capped = await storage.stage(Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), 100);
      assert.equal(capped.truncated, true);
      assert.equal(capped.size, 100);
      assert.equal(fs.statSync(capped.file).size, 100, 'nothing past the cap reaches the disk');
      await storage.discard(capped);
      assert.equal(fs.existsSync(capped.file), false);
      await storage.remove(PRIVATE_BUCKET, key);
      assert.equal(await storage.open(PRIVATE_BUCKET, key), null);
      await storage.remove(PRIVATE_BUCKET, key); // a missing object is not an error
    });

    test('a file of several megabytes goes in and comes out whole', async () => {
      const bytes = Buffer.alloc(5 * 1024 * 1024 + 123, 7);
      bytes.write('first', 0);
      bytes.write('last', bytes.length - 4);
      const key = newKey(workspaceId, 'bin');
      await storage.put(await storage.stage(Readable.from([bytes]), bytes.length), PRIVATE_BUCKET, key);
      const object = await storage.open(PRIVATE_BUCKET, key);
      assert.ok(object);
      assert.equal(object.size, bytes.length);
      const chunks: Buffer[] = [];
      for await (const chunk of object.stream) chunks.push(chunk as Buffer);
      assert.ok(Buffer.concat(chunks).equals(bytes));
      await storage.remove(PRIVATE_BUCKET, key);
    });

    test('keys never leave the root: anything but a server key is refused', async () => {
      for (const key of ['../secret', `${workspaceId}/../../x`, '/etc/passwd', `${workspaceId}/abc`, `${workspaceId}/${'0'.repeat(32)}/x`]) {
        assert.equal(await storage.open(PRIVATE_BUCKET, key), null, key);
        await assert.rejects(storage.remove(PRIVATE_BUCKET, key), /invalid storage key/);
        const staged = await storage.stage(Readable.from([Buffer.from('x')]), 10);
        await assert.rejects(storage.put(staged, PRIVATE_BUCKET, key), /invalid storage key/);
        await storage.discard(staged);
      }
      for (const url of ['/files/..%2F..%2Fetc%2Fpasswd', '/files/public/..%2F..%2Fetc%2Fpasswd', '/files/public/../../etc/passwd']) {
        const res = await t.app.inject(url);
        assert.ok([403, 404].includes(res.statusCode), url);
      }
      assert.deepEqual(store.staging(), []);
    });

    test('the sweeper removes queued bytes (also those a crashed process left) and drops the queue rows', async () => {
      const keys = [newKey(workspaceId, 'bin'), newKey(workspaceId, 'bin')];
      for (const key of keys) await storage.put(await storage.stage(Readable.from([Buffer.from(key)]), 100), PRIVATE_BUCKET, key);
      const keep = newKey(workspaceId, 'bin');
      await storage.put(await storage.stage(Readable.from([Buffer.from('keep')]), 100), PRIVATE_BUCKET, keep);
      for (const key of keys) await queueDeletion(t.db, workspaceId, PRIVATE_BUCKET, key);
      await queueDeletion(t.db, workspaceId, PRIVATE_BUCKET, newKey(workspaceId, 'bin')); // already gone: fine
      await new Sweeper(t.db, storage).run();
      assert.deepEqual(await store.objects(), [`${PRIVATE_BUCKET}/${keep}`]);
      assert.deepEqual(await t.db.selectFrom('file_deletions').selectAll().execute(), []);
      await storage.remove(PRIVATE_BUCKET, keep);
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
      assert.deepEqual(store.staging(), []);
    });
  });
}

describe('storage settings and signing', () => {
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

  test('E30: STORAGE_URL is s3://bucket[/prefix]; the S3_* settings are checked at start', () => {
    assert.deepEqual(parseStorageUrl('s3://files'), { bucket: 'files', prefix: '' });
    assert.deepEqual(parseStorageUrl('s3://my.files-1/fieldwork/prod/'), { bucket: 'my.files-1', prefix: 'fieldwork/prod' });
    for (const bad of ['files', 'https://files/x', 's3://', 's3://Files', 's3://a', 's3://files//x', 's3://files/a/../b', 's3://files/./a', 's3://-files']) {
      assert.throws(() => parseStorageUrl(bad), /STORAGE_URL: .* is not a URL like s3:\/\/bucket/, bad);
    }
    assert.equal(loadConfig({}).s3, null, 'the local directory stays the default');
    assert.deepEqual(loadConfig({ STORAGE_URL: 's3://files/p', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' }).s3, {
      bucket: 'files',
      prefix: 'p',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'a',
      secretAccessKey: 'b',
      forcePathStyle: true,
    });
    assert.deepEqual(loadConfig({ STORAGE_URL: 's3://files', S3_REGION: 'eu-west-3' }).s3, {
      bucket: 'files',
      prefix: '',
      endpoint: null,
      region: 'eu-west-3',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: false,
    });
    assert.throws(() => loadConfig({ STORAGE_URL: 's3://files', S3_ACCESS_KEY_ID: 'a' }), /set both or neither/);
    assert.throws(() => loadConfig({ STORAGE_URL: 's3://files', S3_ENDPOINT: 'minio:9000' }), /S3_ENDPOINT: "minio:9000" is not a URL/);
    assert.throws(() => loadConfig({ STORAGE_URL: 's3://files', S3_FORCE_PATH_STYLE: 'maybe' }), /S3_FORCE_PATH_STYLE/);
  });
});
