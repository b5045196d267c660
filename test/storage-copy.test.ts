import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { buildTestApp, type CliRun, client, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';
import { type S3Server, startS3Server } from './storage-drivers.ts';
import { jpeg, multipartBody, png } from './upload-fixtures.ts';

// E30: `fieldwork storage copy --from DIR --to s3://bucket/prefix` moves a local store
// into a bucket; the files it served from disk are then served from the bucket.

describe('fieldwork storage copy', () => {
  let s3: S3Server;
  let t: TestApp;
  let dir: string;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  const PREFIX = 'fieldwork/prod';
  /** The S3_* settings without STORAGE_URL: the command takes the bucket from --to. */
  let settings: Record<string, string>;

  before(async () => {
    s3 = await startS3Server();
    const { STORAGE_URL: _, ...rest } = s3.env(PREFIX);
    settings = rest;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-copy-'));
    t = await buildTestApp({ STORAGE_DIR: dir });
    ws = await seedWorkspace(t.db);
  });
  after(async () => {
    await t.close();
    await s3.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const copy = (args: string[], env = settings): Promise<CliRun> => spawnCli(t.url, ['storage', 'copy', ...args], env);
  const json = async (args: string[]) => {
    const r = await copy([...args, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 1, 'exactly one line of JSON');
    return JSON.parse(r.stdout);
  };
  const to = `s3://fieldwork-test/${PREFIX}`;

  test('copies every stored file to <prefix>/<bucket>/<key>, leaves staging and strays out, copies nothing twice; the bucket then serves the same URLs', async () => {
    const api = client(t.app, ws.token);
    const contactId = (await api.post('/api/v1/contacts', { first_name: 'Moe', last_name: 'Ving' })).body.data.id;
    const photo = png(9, 9, 42);
    const form = multipartBody([
      { name: 'module_type', value: 'contact' },
      { name: 'module_id', value: String(contactId) },
      { name: 'file', filename: 'roof.png', type: 'image/png', data: photo },
    ]);
    const uploaded = await t.app.inject({ method: 'POST', url: '/api/v1/uploads', payload: form.payload, headers: { authorization: `Bearer ${ws.token}`, 'content-type': form.contentType } });
    assert.equal(uploaded.statusCode, 201, uploaded.body);
    const link = uploaded.json().data;
    const logoBytes = jpeg(20, 10);
    const logoForm = multipartBody([{ name: 'file', filename: 'logo.jpg', type: 'image/jpeg', data: logoBytes }]);
    const logo = await t.app.inject({ method: 'PUT', url: '/api/v1/workspace/logo', payload: logoForm.payload, headers: { authorization: `Bearer ${ws.token}`, 'content-type': logoForm.contentType } });
    assert.equal(logo.statusCode, 200, logo.body);
    const logoUrl = logo.json().data.logo_url as string;
    // An upload in progress and a file no server wrote: neither is a stored file.
    fs.mkdirSync(path.join(dir, '.staging'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.staging', 'abc.part'), 'half');
    fs.writeFileSync(path.join(dir, 'workspaces', String(ws.workspace.id), 'notes.txt'), 'stray');

    const first = await json(['--from', dir, '--to', to]);
    assert.deepEqual(first, { copied: 2, bytes: photo.length + logoBytes.length });
    assert.deepEqual(await s3.keys(PREFIX), [`workspaces/${link.path}`, `workspaces_pub/${new URL(logoUrl).pathname.slice('/files/public/'.length)}`].sort());

    assert.deepEqual(await json(['--from', dir, '--to', to]), { copied: 0, bytes: 0 }, 'a second run copies nothing');
    // A missing object and one whose bytes differ (an interrupted or older copy) are copied again.
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}/workspaces/${link.path}` }));
    const logoObject = `${PREFIX}/workspaces_pub/${new URL(logoUrl).pathname.slice('/files/public/'.length)}`;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: logoObject, Body: 'not the logo' }));
    assert.deepEqual(await json(['--from', dir, '--to', to]), { copied: 2, bytes: photo.length + logoBytes.length });
    const text = await copy(['--from', dir, '--to', to]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Copied 0 files \(0 bytes\) from .* to s3:\/\/fieldwork-test\/fieldwork\/prod; 2 already there, 1 other files under .* left out\.\n$/);
    assert.ok(fs.existsSync(path.join(dir, 'workspaces', link.path)), 'the directory is only read');

    // The same database served from the bucket, with an empty STORAGE_DIR of its own.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-copy-to-'));
    const moved = await buildApp({ config: loadConfig({ PUBLIC_URL: 'http://fieldwork.test', STORAGE_DIR: elsewhere, ...s3.env(PREFIX) }), database: t.database, logger: false });
    try {
      const fresh = await client(moved, ws.token).get(`/api/v1/uploads/${link.link_id}`);
      const u = new URL(fresh.body.data.url);
      const got = await moved.inject(u.pathname + u.search);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.rawPayload, photo);
      const served = await moved.inject(new URL(logoUrl).pathname);
      assert.equal(served.statusCode, 200);
      assert.deepEqual(served.rawPayload, logoBytes);
    } finally {
      await moved.close();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('refuses what is not a store or not a bucket URL, and says why a copy failed', async () => {
    const fails = (r: CliRun, message: RegExp) => {
      assert.notEqual(r.code, 0);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    };
    fails(await copy(['--from', dir, '--to', 'https://fieldwork-test/x']), /--to: "https:\/\/fieldwork-test\/x" is not a URL like s3:\/\/bucket/);
    fails(await copy(['--from', path.join(dir, 'nope'), '--to', to]), /is not a directory/);
    fails(await copy(['--from', dir]), /--to/);
    fails(await copy(['--from', dir, '--to', 's3://no-such-bucket/x']), /storage copy to s3:\/\/no-such-bucket\/x failed after 0 files: .*bucket/i);
    fails(await copy(['--from', dir, '--to', to], { ...settings, S3_ENDPOINT: 'http://127.0.0.1:9' }), /failed after 0 files: .*ECONNREFUSED/);
  });
});
