import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'csv-stringify/sync';
import yauzl from 'yauzl';
import { backgroundTasks } from '../src/modules/background.ts';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';
import { multipartBody, png } from './upload-fixtures.ts';

// E29: the whole-workspace ZIP (API and `fieldwork export`): one JSON file per resource in
// the API's shapes, the files, a manifest; nothing of another workspace; and its clients
// come back into a new workspace through `fieldwork import` as they were.

/** Every entry of a ZIP: name -> bytes. */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

describe('exports', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof seedWorkspace>>;
  let b: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: Client;
  let worker: Worker;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-exports-'));
  const photo = png(3, 3, 9);
  const foreign = { names: ['Zebulon', 'Quixotic Intruders Ltd'], ids: [] as number[] };

  before(async () => {
    t = await buildTestApp({ STORAGE_DIR: dir });
    a = await seedWorkspace(t.db, 'Alpha Lawns');
    b = await seedWorkspace(t.db, 'Beta Intruders');
    api = client(t.app, a.token);
    worker = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20, tasks: backgroundTasks(t.db, t.config) });
    worker.start();
    const clients = [
      {
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.test',
        phone: '555-0100',
        company: 'Engines',
        property: { address: { street: '1 Main St', city: 'London', postal_code: 'N1', country: 'UK' } },
      },
      { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test', property: { address: { street: '2 Navy Rd', city: 'Arlington', state: 'VA' } } },
      { first_name: 'Alan', last_name: 'Turing', email: 'alan@example.test' },
    ];
    for (const c of clients) assert.equal((await api.post('/api/v1/contacts', c)).status, 201);
    const [ada] = (await api.get('/api/v1/contacts?search=Ada')).body.data;
    assert.equal(
      (await api.post('/api/v1/invoices', { contact_id: ada.id, name: 'Mowing', line_items: [{ name: 'Mow', quantity: 1, unitPrice: 40 }] })).status,
      201,
    );
    const form = multipartBody([
      { name: 'module_type', value: 'contact' },
      { name: 'module_id', value: String(ada.id) },
      { name: 'file', filename: 'gate.png', type: 'image/png', data: photo },
    ]);
    const up = await t.app.inject({
      method: 'POST',
      url: '/api/v1/uploads',
      payload: form.payload,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': form.contentType },
    });
    assert.equal(up.statusCode, 201, up.body);
    // B's records: none of them may appear in A's export.
    const other = client(t.app, b.token);
    const z = await other.post('/api/v1/contacts', {
      first_name: 'Zebulon',
      last_name: 'Intruder',
      company: 'Quixotic Intruders Ltd',
      email: 'zeb@intruders.test',
      property: { address: { city: 'Nowhere' } },
    });
    foreign.ids.push(z.body.data.id);
    await other.post('/api/v1/services', { name: 'Quixotic Intruders Ltd service' });
  });
  after(async () => {
    await worker.stop();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let zip: Map<string, Buffer>;

  test('POST /exports queues the ZIP; GET follows it to a signed download URL', async () => {
    const res = await api.post('/api/v1/exports', {});
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual([res.body.data.status, res.body.data.download_url], ['queued', null]);
    worker.wake();
    let got = res.body.data;
    while (got.status === 'queued' || got.status === 'running') {
      await new Promise((r) => setTimeout(r, 50));
      got = (await api.get(`/api/v1/exports/${got.id}`)).body.data;
    }
    assert.equal(got.status, 'done', got.failure);
    const url = new URL(got.download_url);
    assert.ok(url.searchParams.get('signature'), 'signed (D20)');
    const file = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.equal(file.statusCode, 200);
    assert.equal(file.rawPayload.length, got.bytes);
    zip = await unzip(file.rawPayload);
    const manifest = JSON.parse(zip.get('manifest.json')!.toString());
    assert.equal(manifest.schema_version, 1);
    assert.deepEqual([manifest.counts.contacts, manifest.counts.properties, manifest.counts.invoices, manifest.counts.files], [3, 2, 1, 1]);
    assert.deepEqual(got.counts, manifest.counts);
    // The API's own shapes: the list answers' rows.
    const listed = (await api.get('/api/v1/contacts?sort_by=created_at&sort_direction=asc')).body.data;
    assert.deepEqual(JSON.parse(zip.get('contacts.json')!.toString()), listed);
    const [upload] = JSON.parse(zip.get('uploads.json')!.toString());
    assert.deepEqual(zip.get(upload.file_path), photo, 'the file itself, under files/');
    assert.match(upload.file_path, /^files\/\d+-gate\.png$/);
  });

  test('nothing of another workspace is in the ZIP', () => {
    const text = [...zip.values()].map((b) => b.toString('latin1')).join('\n');
    for (const name of foreign.names) assert.ok(!text.includes(name), name);
    assert.ok(!text.includes(`"workspace_id":${b.workspace.id}`));
    for (const id of foreign.ids) assert.ok(!JSON.parse(zip.get('contacts.json')!.toString()).some((c: { id: number }) => c.id === id));
  });

  test('exports need exports:write and exports:read; another workspace sees no export', async () => {
    const contactsOnly = await keyFor(t.db, a.workspace.id, 'rest', ['contacts:read', 'contacts:write']);
    assert.equal((await client(t.app, contactsOnly).post('/api/v1/exports', {})).status, 403);
    const [mine] = await t.db.selectFrom('exports').select('id').where('workspace_id', '=', a.workspace.id).execute();
    assert.equal((await client(t.app, contactsOnly).get(`/api/v1/exports/${mine.id}`)).status, 403);
    assert.equal((await client(t.app, b.token).get(`/api/v1/exports/${mine.id}`)).status, 404);
  });

  test('`fieldwork export` writes the same ZIP; its clients re-imported with `fieldwork import` into a new workspace are the same', async () => {
    const out = path.join(dir, 'alpha.zip');
    const env = { STORAGE_DIR: dir };
    const exported = await spawnCli(t.url, ['export', '--workspace', String(a.workspace.id), '--out', out, '--json'], env);
    assert.equal(exported.code, 0, exported.stderr);
    const summary = JSON.parse(exported.stdout).export;
    assert.equal(summary.bytes, fs.statSync(out).size);
    assert.equal(summary.counts.contacts, 3);
    const entries = await unzip(fs.readFileSync(out));
    const contacts = JSON.parse(entries.get('contacts.json')!.toString());
    const properties = JSON.parse(entries.get('properties.json')!.toString());
    const fields = ['first_name', 'last_name', 'email', 'phone', 'company'];
    const address = ['street', 'street_2', 'city', 'state', 'postal_code', 'country'];
    const rows = contacts.map((c: Record<string, string>) => {
      const p = properties.find((x: { contact_ids: number[] }) => x.contact_ids.includes(Number(c.id)));
      return [...fields.map((f) => c[f] ?? ''), ...address.map((f) => p?.address[f] ?? '')];
    });
    const csvFile = path.join(dir, 'clients.csv');
    fs.writeFileSync(csvFile, stringify([[...fields, ...address], ...rows]));
    const fresh = await seedWorkspace(t.db, 'Gamma Moves In');
    const imported = await spawnCli(t.url, ['import', '--workspace', String(fresh.workspace.id), '--kind', 'clients', '--file', csvFile, '--json'], env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout).import.created, 3);
    const shape = async (token: string) => {
      const c = client(t.app, token);
      const list = (await c.get('/api/v1/contacts?sort_by=email&sort_direction=asc')).body.data;
      return Promise.all(
        list.map(async (x: Record<string, unknown>) => ({
          ...Object.fromEntries(fields.map((f) => [f, x[f]])),
          addresses: (await c.get(`/api/v1/contacts/${x.id}/properties`)).body.data.map((p: { address: object }) => p.address),
        })),
      );
    };
    assert.deepEqual(await shape(fresh.token), await shape(a.token));
  });
});
