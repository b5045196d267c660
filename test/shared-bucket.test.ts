import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backend, buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';
import { killAll, type ServerProc, startServer } from './processes.ts';
import { type S3Server, startS3Server } from './storage-drivers.ts';
import { filesUnder, multipartBody, png } from './upload-fixtures.ts';
import { waitFor } from './webhook-receiver.ts';

// E30: API processes on two machines share their files through one bucket. Each
// process here stands in for a machine: a working folder of its own (so its default
// STORAGE_DIR, ./data/files, is its own), the same PostgreSQL database and bucket,
// and the same PUBLIC_URL, as behind a load balancer that may send any request to either.

const skip = backend !== 'postgres' ? 'PostgreSQL only: SQLite serves one machine (docs/scaling.md)' : false;
const PREFIX = 'fieldwork';

describe('two API machines, one database, one bucket', { skip, timeout: 180_000 }, () => {
  let t: TestApp;
  let s3: S3Server;
  let apis: ServerProc[];
  const folders: string[] = [];
  let token: string;
  let contactId: number;

  before(async () => {
    t = await buildTestApp();
    s3 = await startS3Server();
    const ws = await seedWorkspace(t.db);
    token = ws.token;
    for (let i = 0; i < 2; i++) folders.push(fs.mkdtempSync(path.join(os.tmpdir(), `fieldwork-machine-${i}-`)));
    const env = { DATABASE_URL: t.url, WORKER: 'off', PUBLIC_URL: 'http://office.example.test', ...s3.env(PREFIX) };
    apis = await Promise.all(folders.map((cwd) => startServer(env, cwd)));
    const contact = await api(0, 'POST', '/api/v1/contacts', { body: JSON.stringify({ first_name: 'Two', last_name: 'Machines' }), type: 'application/json' });
    contactId = (await contact.json()).data.id;
  });
  after(async () => {
    await killAll(apis ?? []);
    await s3?.close();
    await t?.close();
    for (const f of folders) fs.rmSync(f, { recursive: true, force: true });
  });

  /** A URL the server handed out, sent to machine `i` (the balancer's choice). */
  const on = (i: number, url: string) => {
    const u = new URL(url);
    return `${apis[i].address}${u.pathname}${u.search}`;
  };
  const api = (i: number, method: string, url: string, init: { body?: BodyInit; type?: string } = {}) =>
    fetch(`${apis[i].address}${url}`, { method, headers: { authorization: `Bearer ${token}`, ...(init.type ? { 'content-type': init.type } : {}) }, body: init.body });
  async function upload(i: number, bytes: Buffer, isPublic: boolean) {
    const form = multipartBody([
      { name: 'module_type', value: 'contact' },
      { name: 'module_id', value: String(contactId) },
      { name: 'is_public', value: String(isPublic) },
      { name: 'file', filename: 'site.png', type: 'image/png', data: bytes },
    ]);
    const res = await api(i, 'POST', '/api/v1/uploads', { body: new Uint8Array(form.payload), type: form.contentType });
    const body = await res.json();
    assert.equal(res.status, 201, JSON.stringify(body));
    return body.data;
  }
  const download = async (i: number, url: string) => {
    const res = await fetch(on(i, url));
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  test("each machine serves the other's uploads and logo from the bucket; a delete on one is gone on both; no machine keeps the bytes", async () => {
    const fromA = png(6, 6, 1);
    const fromB = png(7, 7, 2);
    const a = await upload(0, fromA, false);
    const b = await upload(1, fromB, true);
    // A's signed URL, sent to B, and B's public one, sent to A.
    assert.deepEqual(await download(1, a.url), { status: 200, bytes: fromA });
    assert.deepEqual(await download(0, b.url), { status: 200, bytes: fromB });
    // A fresh signature from B for A's file (D20's key is in the database), served by A.
    const again = await (await api(1, 'GET', `/api/v1/uploads/${a.link_id}`)).json();
    assert.deepEqual(await download(0, again.data.url), { status: 200, bytes: fromA });

    const logo = png(10, 5, 3);
    const form = multipartBody([{ name: 'file', filename: 'logo.png', type: 'image/png', data: logo }]);
    const set = await api(1, 'PUT', '/api/v1/workspace/logo', { body: new Uint8Array(form.payload), type: form.contentType });
    assert.equal(set.status, 200);
    const logoUrl = (await set.json()).data.logo_url as string;
    assert.deepEqual(await download(0, logoUrl), { status: 200, bytes: logo });

    const objects = await s3.keys(PREFIX);
    assert.deepEqual(objects, [`workspaces/${a.path}`, `workspaces_pub/${b.path}`, `workspaces_pub/${new URL(logoUrl).pathname.slice('/files/public/'.length)}`].sort());
    for (const folder of folders) {
      assert.deepEqual(filesUnder(path.join(folder, 'data', 'files')), [], `${folder} holds no stored file and no upload in progress`);
    }

    // Deleted through A: the bytes leave the bucket (A's sweeper), and B answers 404 too.
    assert.equal((await api(0, 'DELETE', `/api/v1/uploads/${b.link_id}`)).status, 200);
    await waitFor('the bytes to leave the bucket', async () => !(await s3.keys(PREFIX)).includes(`workspaces_pub/${b.path}`), 10_000);
    assert.equal((await download(1, b.url)).status, 404);
    assert.equal((await download(0, b.url)).status, 404);
    assert.deepEqual(await download(1, a.url), { status: 200, bytes: fromA }, 'the other file stays');
  });
});
