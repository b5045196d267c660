import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { backgroundTasks } from '../src/modules/background.ts';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from './helpers.ts';
import { multipartBody, png } from './upload-fixtures.ts';

// E28: CSV imports of clients (with one property each) and price book services, run by
// the worker: header matching, mappings, dry runs, per-row errors with the API's own
// messages, updates by email, encodings and separators, and the file-level refusals.

describe('imports', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: Client;
  let worker: Worker;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-imports-'));

  const upload = (file: Buffer, fields: Record<string, string>, token = ws.token) => {
    const body = multipartBody([
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      { name: 'file', filename: 'clients.csv', type: 'text/csv', data: file },
    ]);
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/imports',
      payload: body.payload,
      headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
    });
  };
  /** Posts the import and waits for the worker to finish it. */
  const imported = async (file: Buffer, fields: Record<string, string>) => {
    const res = await upload(file, fields);
    assert.equal(res.statusCode, 202, res.body);
    const { id } = res.json().data;
    worker.wake();
    for (;;) {
      const got = (await api.get(`/api/v1/imports/${id}`)).body.data;
      if (got.status === 'done' || got.status === 'failed') return got;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const contacts = () => t.db.selectFrom('contacts').selectAll().where('workspace_id', '=', ws.workspace.id).orderBy('id').execute();

  before(async () => {
    t = await buildTestApp({ STORAGE_DIR: dir });
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    worker = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20, tasks: backgroundTasks(t.db, t.config) });
    worker.start();
  });
  after(async () => {
    await worker.stop();
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Windows-1252, `;`, headers as a spreadsheet writes them; line 3 has a bad email.
  const clients1252 = iconv.encode(
    [
      'First Name;Last Name;E-mail;Phone;Street;City;Postal Code',
      'Zoë;Müller;zoe@example.test;555-0101;1 Elm St;Springfield;12345',
      'Bad;Row;not-an-email;;;;',
      'Ann;Lee;ANN@example.test;;2 Oak Ave;Shelbyville;',
    ].join('\r\n'),
    'win1252',
  );

  test('a dry run reports what would happen and writes nothing', async () => {
    const result = await imported(clients1252, { kind: 'clients', dry_run: 'true' });
    assert.equal(result.status, 'done');
    assert.deepEqual([result.dry_run, result.rows, result.processed, result.created, result.updated, result.skipped], [true, 3, 3, 2, 0, 1]);
    assert.deepEqual(result.errors, [{ row: 3, field: 'email', message: 'must match format "email"' }]);
    assert.deepEqual(await contacts(), []);
  });

  test('the import writes each valid row as a client and its property; a second run updates by email and creates nothing', async () => {
    const first = await imported(clients1252, { kind: 'clients' });
    assert.deepEqual([first.status, first.created, first.updated, first.skipped], ['done', 2, 0, 1]);
    const rows = await contacts();
    assert.deepEqual(
      rows.map((c) => [c.first_name, c.last_name, c.email]),
      [
        ['Zoë', 'Müller', 'zoe@example.test'],
        ['Ann', 'Lee', 'ANN@example.test'],
      ],
    );
    const props = (await api.get(`/api/v1/contacts/${rows[0].id}/properties`)).body.data;
    assert.equal(props.length, 1);
    assert.deepEqual([props[0].address.street, props[0].address.city, props[0].address.postal_code], ['1 Elm St', 'Springfield', '12345']);
    const again = await imported(clients1252, { kind: 'clients' });
    assert.deepEqual([again.created, again.updated, again.skipped], [0, 2, 1]);
    assert.equal((await contacts()).length, 2);
    assert.equal((await api.get(`/api/v1/contacts/${rows[0].id}/properties`)).body.data.length, 1, 'no second property');
  });

  test('UTF-8 with a BOM, `,`, an explicit mapping, and the price book', async () => {
    const csv = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('Item,Cost,Code,Tax\r\nLawn mowing,"1,234.50",MOW-1,yes\r\nHedge trim,80,,no\r\nBroken,abc,,\r\n'),
    ]);
    const result = await imported(csv, { kind: 'services', mapping: JSON.stringify({ Item: 'name', Cost: 'price', Code: 'sku', Tax: 'taxable' }) });
    assert.deepEqual([result.created, result.skipped], [2, 1]);
    assert.deepEqual(result.errors, [{ row: 4, field: 'price', message: 'must be number' }]);
    const list = (await api.get('/api/v1/services?sort_by=name&sort_direction=asc')).body.data;
    assert.deepEqual(
      list.map((s: { name: string; price: number; taxable: boolean }) => [s.name, s.price, s.taxable]),
      [
        ['Hedge trim', 80, false],
        ['Lawn mowing', 1234.5, true],
      ],
    );
  });

  test('a file that is not CSV, empty, too large, without rows, or with unknown columns is refused at once, and nothing is queued', async () => {
    const refused = async (file: Buffer, fields: Record<string, string>, message: RegExp, field = 'file') => {
      const res = await upload(file, fields);
      assert.equal(res.statusCode, 400, res.body);
      const detail = res.json().details.find((d: { path: string[] }) => d.path.join('.') === field);
      assert.ok(detail, res.body);
      assert.match(detail.message, message);
    };
    await refused(png(2, 2, 1), { kind: 'clients' }, /is a png file, not CSV/);
    await refused(Buffer.from(''), { kind: 'clients' }, /is empty/);
    await refused(Buffer.from('first_name,last_name\r\n'), { kind: 'clients' }, /no rows below its header/);
    await refused(Buffer.from('first_name,last_name,Notes,Colour\r\na,b,c,d\r\n'), { kind: 'clients' }, /unknown columns: "Notes", "Colour"/);
    await refused(Buffer.from('first_name,email\r\na,b\r\n'), { kind: 'clients' }, /no column for last_name/);
    await refused(
      Buffer.from('first_name,last_name\r\na,b\r\n'),
      { kind: 'clients', mapping: '{"Nope":"email"}' },
      /is not a column of the file/,
      'mapping.Nope',
    );
    await refused(Buffer.alloc(20 * 1024 * 1024 + 1, 0x61), { kind: 'clients' }, /at most 20 MB/);
    const noKind = await upload(Buffer.from('name\r\nx\r\n'), {});
    assert.equal(noKind.statusCode, 400);
    // A column mapped to null is skipped.
    const skipped = await imported(Buffer.from('first_name,last_name,Notes\r\nNull,Mapped,ignored\r\n'), { kind: 'clients', mapping: '{"Notes":null}' });
    assert.equal(skipped.created, 1);
    assert.equal(
      Number(
        (
          await t.db
            .selectFrom('imports')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      5,
      'only the five accepted files were queued',
    );
  });

  test("the scope is the records' own; another workspace's import is not found", async () => {
    const servicesOnly = await keyFor(t.db, ws.workspace.id, 'rest', ['services:write', 'services:read']);
    const res = await upload(Buffer.from('first_name,last_name\r\na,b\r\n'), { kind: 'clients' }, servicesOnly);
    assert.equal(res.statusCode, 403);
    const [mine] = await t.db.selectFrom('imports').select('id').where('workspace_id', '=', ws.workspace.id).execute();
    const other = await seedWorkspace(t.db);
    assert.equal((await client(t.app, other.token).get(`/api/v1/imports/${mine.id}`)).status, 404);
  });

  test('rows are written a batch at a time, not a row at a time; two rows with one email make one client, updated by the second', async () => {
    const lines = ['first_name,last_name,email,street,city'];
    for (let i = 0; i < 300; i++) lines.push(`Bulk${i},Row,bulk${i}@example.test,${i} Pine St,Ogdenville`);
    lines[280] = 'Bad,Row,not-an-email,,'; // line 281 of the file, in the second batch
    lines.push('Dup,First,dup@example.test,,', 'Dup,Second,DUP@example.test,9 Birch Rd,Ogdenville', 'Dup,Third,dup@example.test,10 Other Rd,Ogdenville');
    const events = async () =>
      Object.fromEntries(
        (
          await t.db
            .selectFrom('outbox')
            .select(['event', (eb) => eb.fn.countAll<number>().as('n')])
            .where('workspace_id', '=', ws.workspace.id)
            .groupBy('event')
            .execute()
        ).map((r) => [r.event, Number(r.n)]),
      );
    const before = await events();
    t.queries.length = 0;
    const result = await imported(Buffer.from(lines.join('\r\n')), { kind: 'clients' });
    assert.deepEqual([result.rows, result.created, result.updated, result.skipped], [303, 300, 2, 1]);
    assert.deepEqual(result.errors, [{ row: 281, field: 'email', message: 'must match format "email"' }]);
    // Batch one (250 new clients): contacts, properties, links, events. Batch two: the same
    // four, an UPDATE per updated row, one INSERT of their events, and the duplicate's first
    // property and link (the worker also marks events dispatched: not counted).
    const writes = t.queries.filter((q) => /^(insert into "(contacts|properties|contact_properties|outbox)"|update "(contacts|properties)")/.test(q));
    assert.equal(writes.length, 4 + 4 + 2 + 1 + 2, writes.map((q) => q.slice(0, 40)).join('\n'));
    const after = await events();
    assert.equal((after.new_contact ?? 0) - (before.new_contact ?? 0), 300);
    assert.equal((after.contact_updated ?? 0) - (before.contact_updated ?? 0), 2);
    const dups = (await contacts()).filter((c) => c.email?.toLowerCase() === 'dup@example.test');
    assert.deepEqual(
      dups.map((c) => [c.first_name, c.last_name]),
      [['Dup', 'Third']],
    );
    const props = (await api.get(`/api/v1/contacts/${dups[0].id}/properties`)).body.data;
    assert.deepEqual(
      props.map((p: { address: { street: string } }) => p.address.street),
      ['9 Birch Rd'],
      'the first property only',
    );
    const bulk = (await contacts()).find((c) => c.email === 'bulk299@example.test')!;
    assert.equal((await api.get(`/api/v1/contacts/${bulk.id}/properties`)).body.data[0].address.street, '299 Pine St');
  });
});
