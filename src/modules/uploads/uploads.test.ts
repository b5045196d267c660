import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { buildApp } from '../../app.ts';
import { STORAGE_DRIVERS, type TestStore, testStore } from '../../../test/storage-drivers.ts';
import { cfb, docx, type FormPart, insertParent, jpeg, multipartBody, pdf, png, webp, xlsx } from '../../../test/upload-fixtures.ts';

const MB5 = 5 * 1024 * 1024;

for (const driver of STORAGE_DRIVERS) {
  describe(`uploads (${driver})`, () => {
    let t: TestApp;
    let store: TestStore;
    let ws: Awaited<ReturnType<typeof seedWorkspace>>;
    let api: Client;
    let contactId: number;
    let seed = 1;

    before(async () => {
      store = await testStore(driver);
      t = await buildTestApp(store.env);
      ws = await seedWorkspace(t.db);
      api = client(t.app, ws.token);
      contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Files' })).body.data.id;
    });
    after(async () => {
      // The concurrency tests grow the PostgreSQL pool; pg ends those clients without
      // waiting, so give them a moment before the test database is dropped under them.
      await t.app.close();
      await t.database.close();
      await new Promise((r) => setTimeout(r, 300));
      await t.close();
      await store.close();
    });

    /** POST /uploads with a real multipart body. */
    async function upload(parts: FormPart[], token = ws.token) {
      const { payload, contentType } = multipartBody(parts);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/uploads',
        payload,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      });
      return { status: res.statusCode, body: res.json() };
    }
    const fields = (o: Record<string, string | number | boolean>): FormPart[] => Object.entries(o).map(([name, value]) => ({ name, value: String(value) }));
    const file = (data: Buffer, filename = 'photo.png', type = 'image/png'): FormPart => ({ name: 'file', filename, type, data });
    const forContact = (id = contactId, extra: Record<string, string | number | boolean> = {}) => fields({ module_type: 'contact', module_id: id, ...extra });
    /** Fetches a file URL through inject, as a browser would (no API key). */
    const fetchUrl = async (url: string, app = t.app) => {
      const u = new URL(url);
      assert.equal(u.origin, 'http://fieldwork.test', 'URLs start with PUBLIC_URL');
      return app.inject({ method: 'GET', url: u.pathname + u.search });
    };
    /** Stored objects plus uploads left in staging: every byte a request may leave behind. */
    const stored = async () => (await store.objects()).length + store.staging().length;
    const linkCount = async () =>
      Number(
        (
          await t.db
            .selectFrom('upload_links')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('POST stores a private file: 201, the SPEC link fields, a signed URL and image dimensions', async () => {
      const before = await stored();
      const bytes = png(3, 2, seed++);
      const res = await upload([...forContact(), file(bytes, 'site photo.png')]);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const d = res.body.data;
      assert.equal(d.module_type, 'contact');
      assert.equal(d.module_id, contactId);
      assert.equal(d.name, 'site photo.png', 'name defaults to the original file name');
      assert.equal(d.original_file_name, 'site photo.png');
      assert.equal(d.description, null);
      assert.equal(d.category, 'attachment');
      assert.equal(d.bucket, 'workspaces');
      assert.equal(d.owner_id, ws.owner.user_id);
      assert.deepEqual(d.meta, { width: 3, height: 2 });
      assert.equal(d.mime_type, 'image/png');
      assert.equal(d.size, bytes.length);
      assert.ok(Number.isInteger(d.link_id));
      assert.match(d.link_created_at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(d.link_modified_at, d.link_created_at);
      // D20: the key is the server's, never the client's name.
      assert.match(d.path, new RegExp(`^${ws.workspace.id}/[0-9a-f]{32}\\.png$`));
      const url = new URL(d.url);
      assert.equal(url.pathname, `/files/${d.path}`);
      const expires = Number(url.searchParams.get('expires'));
      assert.ok(Math.abs(expires - (Date.now() / 1000 + 3600)) < 60, 'valid for 1 hour');
      assert.match(url.searchParams.get('signature') ?? '', /^[0-9a-f]{64}$/);
      assert.equal(await stored(), before + 1);
      assert.deepEqual(store.staging(), [], 'nothing left in staging');

      const got = await fetchUrl(d.url);
      assert.equal(got.statusCode, 200);
      assert.equal(got.headers['content-type'], 'image/png');
      assert.equal(got.headers['x-content-type-options'], 'nosniff');
      assert.deepEqual(got.rawPayload, bytes);
    });

    test('fields: name, description, category; is_public as text', async () => {
      const res = await upload([
        ...forContact(contactId, { name: 'Roof', description: 'north side', category: 'internal', is_public: 'false' }),
        file(png(2, 2, seed++)),
      ]);
      assert.equal(res.status, 201);
      assert.equal(res.body.data.name, 'Roof');
      assert.equal(res.body.data.description, 'north side');
      assert.equal(res.body.data.category, 'internal');
      assert.equal(res.body.data.bucket, 'workspaces');
    });

    test('a UTF-8 file name is kept as sent (and only as the name: the key stays the server’s)', async () => {
      const res = await upload([...forContact(), file(png(2, 4, seed++), 'façade – 東京 (1).png')]);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.name, 'façade – 東京 (1).png');
      assert.equal(res.body.data.original_file_name, 'façade – 東京 (1).png');
      // The key is the server's: `<workspace>/<32 hex>.<ext>`, nothing of the client's name.
      assert.match(res.body.data.path, /^\d+\/[0-9a-f]{32}\.png$/);
      const got = await fetchUrl(res.body.data.url);
      assert.equal(got.headers['content-disposition'], `inline; filename*=UTF-8''${encodeURIComponent('façade – 東京 ').replace(/ /g, '%20')}%281%29.png`);
    });

    test('fields may follow the file in the body', async () => {
      const res = await upload([file(png(2, 3, seed++)), ...forContact()]);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    });

    test('D20: is_public=true is stored in the public bucket, served without auth at a stable URL', async () => {
      const bytes = png(4, 4, seed++);
      const res = await upload([...forContact(contactId, { is_public: 'true' }), file(bytes)]);
      assert.equal(res.status, 201);
      const d = res.body.data;
      assert.equal(d.bucket, 'workspaces_pub');
      assert.equal(d.url, `http://fieldwork.test/files/public/${d.path}`);
      const again = await api.get(`/api/v1/uploads/${d.link_id}`);
      assert.equal(again.body.data.url, d.url, 'stable');
      const got = await fetchUrl(d.url);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.rawPayload, bytes);
      // A public key is not a private file, and the public route never serves private ones.
      assert.equal((await t.app.inject(`/files/${d.path}`)).statusCode, 403);
      const priv = (await upload([...forContact(), file(png(5, 5, seed++))])).body.data;
      assert.equal((await t.app.inject(`/files/public/${priv.path}`)).statusCode, 404);
    });

    test('D20: a tampered or expired URL is 403', async () => {
      const d = (await upload([...forContact(), file(png(6, 1, seed++))])).body.data;
      const url = new URL(d.url);
      const sig = url.searchParams.get('signature')!;
      const expires = url.searchParams.get('expires')!;
      const other = (await upload([...forContact(), file(png(6, 2, seed++))])).body.data;
      const flip = (s: string) => (s[0] === 'a' ? 'b' : 'a') + s.slice(1);
      for (const bad of [
        `/files/${d.path}?expires=${expires}&signature=${flip(sig)}`,
        `/files/${d.path}?expires=${Number(expires) + 1}&signature=${sig}`,
        `/files/${other.path}?expires=${expires}&signature=${sig}`,
        `/files/${d.path}?expires=${expires}`,
        `/files/${d.path}`,
        `/files/${d.path}?expires=abc&signature=${sig}`,
        `/files/${d.path}?expires=${expires}&signature=${sig}&signature=${sig}`,
      ]) {
        const res = await t.app.inject(bad);
        assert.equal(res.statusCode, 403, bad);
        assert.deepEqual(res.json(), { success: false, error: 'Invalid or expired file URL' });
      }
      // Expired: correctly signed (with the stored key), but the time has passed.
      const secret = await t.db.selectFrom('service_secrets').select('value').executeTakeFirstOrThrow();
      const past = Math.floor(Date.now() / 1000) - 1;
      const signature = createHmac('sha256', Buffer.from(secret.value, 'hex')).update(`workspaces\n${d.path}\n${past}`).digest('hex');
      assert.equal((await t.app.inject(`/files/${d.path}?expires=${past}&signature=${signature}`)).statusCode, 403);
      const future = past + 120;
      const ok = createHmac('sha256', Buffer.from(secret.value, 'hex')).update(`workspaces\n${d.path}\n${future}`).digest('hex');
      assert.equal((await t.app.inject(`/files/${d.path}?expires=${future}&signature=${ok}`)).statusCode, 200, 'the same key signs valid URLs');
    });

    test('D20: signed URLs survive an app restart on the same database', async () => {
      const bytes = png(7, 7, seed++);
      const d = (await upload([...forContact(), file(bytes)])).body.data;
      const restarted = await buildApp({ config: t.config, database: t.database, logger: false });
      await restarted.ready();
      try {
        const got = await fetchUrl(d.url, restarted);
        assert.equal(got.statusCode, 200);
        assert.deepEqual(got.rawPayload, bytes);
        const fresh = await client(restarted, ws.token).get(`/api/v1/uploads/${d.link_id}`);
        assert.equal((await fetchUrl(fresh.body.data.url, t.app)).statusCode, 200, 'and the old instance accepts the new one');
      } finally {
        await restarted.close();
      }
    });

    test('D20, D27: every accepted type is recognised from its bytes', async () => {
      const cases: [Buffer, string, string, string, unknown][] = [
        [jpeg(40, 30), 'a.jpg', 'image/jpeg', 'image/jpeg', { width: 40, height: 30 }],
        [jpeg(41, 31), 'b.jpg', 'image/jpg', 'image/jpeg', { width: 41, height: 31 }],
        [webp(64, 48), 'c.webp', 'image/webp', 'image/webp', { width: 64, height: 48 }],
        [pdf('x'), 'd.pdf', 'application/pdf', 'application/pdf', null],
        [
          docx(),
          'e.docx',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          null,
        ],
        [
          xlsx(),
          'f.xlsx',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          null,
        ],
        [cfb(1), 'g.doc', 'application/msword', 'application/msword', null],
        [cfb(2), 'h.xls', 'application/vnd.ms-excel', 'application/vnd.ms-excel', null],
        [cfb(3), 'i.xls', 'application/octet-stream', 'application/vnd.ms-excel', null],
        [Buffer.from('name,total\nAda,12.50\nÉmile,3\n'), 'j.csv', 'text/csv', 'text/csv', null],
        [Buffer.from('a,b\n1,2\n'), 'k.csv', 'application/octet-stream', 'text/csv', null],
        [Buffer.from('a;b\n3;4\n'), 'export', 'text/csv', 'text/csv', null],
        [png(9, 8, seed++), 'no-declared-type', 'application/octet-stream', 'image/png', { width: 9, height: 8 }],
      ];
      for (const [data, filename, declared, mime, meta] of cases) {
        const res = await upload([...forContact(), file(data, filename, declared)]);
        assert.equal(res.status, 201, `${filename}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.data.mime_type, mime, filename);
        assert.deepEqual(res.body.data.meta, meta, filename);
        const got = await fetchUrl(res.body.data.url);
        assert.equal(got.headers['content-type'], mime, filename);
      }
    });

    describe('bad input: 400 Validation error, nothing stored, no bytes left (a count of the store)', () => {
      const cases: [string, () => FormPart[], (string | number)[]][] = [
        ['PNG bytes declared as a PDF', () => [...forContact(), file(png(2, 2, 900), 'x.pdf', 'application/pdf')], ['file']],
        ['PDF bytes declared as a PNG', () => [...forContact(), file(pdf('lie'), 'x.png', 'image/png')], ['file']],
        ['text declared as a PNG', () => [...forContact(), file(Buffer.from('just text'), 'x.png', 'image/png')], ['file']],
        ['text declared as a PDF, named .csv', () => [...forContact(), file(Buffer.from('a,b\n'), 'x.csv', 'application/pdf')], ['file']],
        [
          'a GIF (not an accepted type)',
          () => [...forContact(), file(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'x.gif', 'image/gif')],
          ['file'],
        ],
        [
          'an executable declared as a PDF',
          () => [...forContact(), file(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 1)]), 'x.pdf', 'application/pdf')],
          ['file'],
        ],
        [
          'a zip that is not an Office document',
          () => [
            ...forContact(),
            file(Buffer.from('PK\x03\x04rest-of-zip', 'latin1'), 'x.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
          ],
          ['file'],
        ],
        ['CSV text with a NUL byte', () => [...forContact(), file(Buffer.from('a,b\n1,\0\n', 'latin1'), 'x.csv', 'text/csv')], ['file']],
        ['CSV that is not UTF-8', () => [...forContact(), file(Buffer.from([0x61, 0x2c, 0xff, 0xfe, 0x0a]), 'x.csv', 'text/csv')], ['file']],
        ['text neither named .csv nor declared text/csv', () => [...forContact(), file(Buffer.from('a,b\n'), 'notes.txt', 'text/plain')], ['file']],
        ['an OLE file named neither .doc nor .xls', () => [...forContact(), file(cfb(9), 'x.bin', 'application/octet-stream')], ['file']],
        ['an empty file', () => [...forContact(), file(Buffer.alloc(0), 'empty.png', 'image/png')], ['file']],
        [
          '5 MB + 1 byte',
          () => [...forContact(), file(Buffer.concat([png(1, 1, 901), Buffer.alloc(MB5 + 1 - png(1, 1, 901).length)]), 'big.png', 'image/png')],
          ['file'],
        ],
        ['a file name with a slash', () => [...forContact(), file(png(2, 2, 902), '../../etc/passwd.png')], ['file']],
        ['a file name with a backslash', () => [...forContact(), file(png(2, 2, 903), '..\\evil.png')], ['file']],
        ['a file name with a control character', () => [...forContact(), file(png(2, 2, 904), 'bad\x01name.png')], ['file']],
        ['a file name with a tab', () => [...forContact(), file(png(2, 2, 905), 'bad\tname.png')], ['file']],
        ['a missing module_id', () => [...fields({ module_type: 'contact' }), file(png(2, 2, 906))], ['module_id']],
        ['a non-integer module_id', () => [...fields({ module_type: 'contact', module_id: '1.5' }), file(png(2, 2, 907))], ['module_id']],
        ['a missing module_type', () => [...fields({ module_id: 1 }), file(png(2, 2, 908))], ['module_type']],
        ['an unknown module_type', () => [...fields({ module_type: 'planet', module_id: 1 }), file(png(2, 2, 909))], ['module_type']],
        ['an unknown category', () => [...forContact(contactId, { category: 'secret' }), file(png(2, 2, 910))], ['category']],
        ['is_public that is not a boolean', () => [...forContact(contactId, { is_public: 'maybe' }), file(png(2, 2, 911))], ['is_public']],
        ['a display name with a slash', () => [...forContact(contactId, { name: 'a/b' }), file(png(2, 2, 912))], ['name']],
        ['no file at all', () => forContact(), ['file']],
        ['two files', () => [...forContact(), file(png(2, 2, 913)), file(png(2, 2, 914))], ['file']],
      ];
      for (const [label, parts, detailPath] of cases) {
        test(label, async () => {
          const [filesBefore, linksBefore] = [await stored(), await linkCount()];
          const res = await upload(parts());
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.success, false);
          assert.equal(res.body.error, 'Validation error');
          assert.ok(
            res.body.details.some((d: { path: unknown[] }) => JSON.stringify(d.path) === JSON.stringify(detailPath)),
            JSON.stringify(res.body.details),
          );
          assert.equal(await stored(), filesBefore, 'no bytes left on disk');
          assert.equal(await linkCount(), linksBefore, 'no link stored');
        });
      }

      test('exactly 5 MB is accepted', async () => {
        const head = png(1, 1, 915);
        const res = await upload([...forContact(), file(Buffer.concat([head, Buffer.alloc(MB5 - head.length)]), 'exact.png')]);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.equal(res.body.data.size, MB5);
      });
    });

    test('SPEC Errors: a POST that is not multipart/form-data is 415', async () => {
      const before = await stored();
      const json = await api.post('/api/v1/uploads', { module_type: 'contact', module_id: contactId });
      assert.equal(json.status, 415);
      assert.equal(json.body.success, false);
      assert.equal(json.body.error, 'Content-Type must be multipart/form-data');
      for (const type of ['text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/uploads',
          payload: 'x=1',
          headers: { authorization: `Bearer ${ws.token}`, 'content-type': type },
        });
        assert.equal(res.statusCode, 415, type);
      }
      const none = await t.app.inject({ method: 'POST', url: '/api/v1/uploads', headers: { authorization: `Bearer ${ws.token}` } });
      assert.equal(none.statusCode, 415);
      assert.equal(await stored(), before);
      assert.equal((await t.app.inject({ method: 'POST', url: '/api/v1/uploads' })).statusCode, 401, 'authentication comes first');
    });

    test('D32: a parent outside the workspace is 404 with its own text; nothing stored', async () => {
      const other = await seedWorkspace(t.db);
      const foreignContact = (await client(t.app, other.token).post('/api/v1/contacts', { first_name: 'F', last_name: 'Oreign' })).body.data.id;
      const before = await stored();
      for (const [parts, text] of [
        [[...forContact(999_999), file(png(2, 2, seed++))], 'Contact not found'],
        [[...forContact(foreignContact), file(png(2, 2, seed++))], 'Contact not found'],
        [[...fields({ module_type: 'quote', module_id: 999_999 }), file(png(2, 2, seed++))], 'Quote not found'],
        [[...fields({ module_type: 'invoice', module_id: 999_999 }), file(png(2, 2, seed++))], 'Invoice not found'],
        [[...fields({ module_type: 'event', module_id: 999_999 }), file(png(2, 2, seed++))], 'Event not found'],
        [[...fields({ module_type: 'timesheet', module_id: 999_999 }), file(png(2, 2, seed++))], 'Timesheet not found'],
      ] as [FormPart[], string][]) {
        const res = await upload(parts);
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { success: false, error: text });
      }
      assert.equal(await stored(), before);
      const list = await api.get(`/api/v1/uploads?module_type=contact&module_id=${foreignContact}`);
      assert.equal(list.status, 404);
      assert.equal(list.body.error, 'Contact not found');
    });

    test('requests, quotes, jobs, invoices, events and timesheets are parents too, each with its own scope', async () => {
      for (const type of ['request', 'quote', 'job', 'invoice', 'event', 'timesheet'] as const) {
        const id = await insertParent(t.db, ws.workspace.id, type, ws.owner.user_id);
        const res = await upload([...fields({ module_type: type, module_id: id }), file(pdf(type), `${type}.pdf`, 'application/pdf')]);
        assert.equal(res.status, 201, type);
        const list = await api.get(`/api/v1/uploads?module_type=${type}&module_id=${id}`);
        assert.deepEqual(
          list.body.data.map((l: { link_id: number }) => l.link_id),
          [res.body.data.link_id],
        );
        const scope = `${type}s`;
        const readOnly = await keyFor(t.db, ws.workspace.id, 'rest', [`${scope}:read`]);
        const denied = await upload([...fields({ module_type: type, module_id: id }), file(pdf(type), 'x.pdf', 'application/pdf')], readOnly);
        assert.equal(denied.status, 403);
        assert.deepEqual(denied.body, { success: false, error: `Missing required scope: ${scope}:write` });
        assert.equal((await client(t.app, readOnly).get(`/api/v1/uploads/${res.body.data.link_id}`)).status, 200);
      }
    });

    test('SPEC Uploads 4: every route checks the parent scope, worded "Missing required scope"', async () => {
      const link = (await upload([...forContact(), file(png(3, 3, seed++))])).body.data;
      const quotesOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:read', 'quotes:write']));
      const contactsRead = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read']));
      const expect403 = (res: { status: number; body: { error: string } }, scope: string) => {
        assert.equal(res.status, 403);
        assert.equal(res.body.error, `Missing required scope: ${scope}`);
      };
      expect403(await quotesOnly.get(`/api/v1/uploads?module_type=contact&module_id=${contactId}`), 'contacts:read');
      expect403(await quotesOnly.get(`/api/v1/uploads/${link.link_id}`), 'contacts:read');
      expect403(await contactsRead.patch(`/api/v1/uploads/${link.link_id}`, { name: 'x' }), 'contacts:write');
      expect403(await contactsRead.delete(`/api/v1/uploads/${link.link_id}`), 'contacts:write');
      const before = await stored();
      const { payload, contentType } = multipartBody([...forContact(), file(png(3, 4, seed++))]);
      const post = await t.app.inject({
        method: 'POST',
        url: '/api/v1/uploads',
        payload,
        headers: { authorization: `Bearer ${await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read'])}`, 'content-type': contentType },
      });
      assert.equal(post.statusCode, 403);
      assert.equal(post.json().error, 'Missing required scope: contacts:write');
      assert.equal(await stored(), before, 'a refused upload leaves no bytes');
      assert.equal((await contactsRead.get(`/api/v1/uploads/${link.link_id}`)).status, 200);
      assert.equal((await contactsRead.get(`/api/v1/uploads?module_type=contact&module_id=${contactId}`)).status, 200);
    });

    describe('list', () => {
      let listContact: number;
      let ids: number[];
      before(async () => {
        listContact = (await api.post('/api/v1/contacts', { first_name: 'List', last_name: 'Me' })).body.data.id;
        ids = [];
        for (const category of ['attachment', 'internal', 'attachment']) {
          ids.push((await upload([...forContact(listContact, { category }), file(png(2, 2, seed++))])).body.data.link_id);
        }
      });

      test('D1: newest first, paginated, with a fresh URL per link', async () => {
        const res = await api.get(`/api/v1/uploads?module_type=contact&module_id=${listContact}`);
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.data.map((l: { link_id: number }) => l.link_id),
          [...ids].reverse(),
        );
        assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
        for (const l of res.body.data) assert.equal((await fetchUrl(l.url)).statusCode, 200);
        const p2 = await api.get(`/api/v1/uploads?module_type=contact&module_id=${listContact}&per_page=2&page=2`);
        assert.deepEqual(
          p2.body.data.map((l: { link_id: number }) => l.link_id),
          [ids[0]],
        );
        assert.deepEqual(p2.body.pagination, { page: 2, per_page: 2, total_pages: 2 });
      });

      test('category filter', async () => {
        const res = await api.get(`/api/v1/uploads?module_type=contact&module_id=${listContact}&category=internal`);
        assert.deepEqual(
          res.body.data.map((l: { link_id: number }) => l.link_id),
          [ids[1]],
        );
      });

      test('D4: module_type and module_id are required; bad query parameters are 400 Validation error', async () => {
        for (const q of [
          'module_type=contact',
          `module_id=${listContact}`,
          '',
          `module_type=planet&module_id=${listContact}`,
          `module_type=contact&module_id=abc`,
          `module_type=contact&module_id=${listContact}&per_page=0`,
          `module_type=contact&module_id=${listContact}&per_page=101`,
          `module_type=contact&module_id=${listContact}&category=secret`,
        ]) {
          const res = await api.get(`/api/v1/uploads?${q}`);
          assert.equal(res.status, 400, q);
          assert.equal(res.body.error, 'Validation error', q);
          assert.ok(res.body.details.length > 0);
        }
        const missing = await api.get('/api/v1/uploads?module_type=contact');
        assert.ok(missing.body.details.some((d: { path: string[] }) => d.path[0] === 'module_id'));
      });
    });

    test('GET one: a fresh URL each time; other workspaces and unknown ids are 404 Upload not found', async () => {
      const d = (await upload([...forContact(), file(png(8, 8, seed++))])).body.data;
      const got = await api.get(`/api/v1/uploads/${d.link_id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.link_id, d.link_id);
      assert.equal((await fetchUrl(got.body.data.url)).statusCode, 200);
      const other = client(t.app, (await seedWorkspace(t.db)).token);
      for (const res of [
        await other.get(`/api/v1/uploads/${d.link_id}`),
        await other.patch(`/api/v1/uploads/${d.link_id}`, { name: 'mine' }),
        await other.delete(`/api/v1/uploads/${d.link_id}`),
        await api.get('/api/v1/uploads/999999'),
        await api.get('/api/v1/uploads/abc'),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { success: false, error: 'Upload not found' });
      }
      assert.equal((await api.get(`/api/v1/uploads/${d.link_id}`)).body.data.name, d.name, 'untouched');
    });

    test('PATCH changes name, description, category; needs at least one; bytes are never replaced', async () => {
      const d = (await upload([...forContact(), file(png(9, 9, seed++))])).body.data;
      await new Promise((r) => setTimeout(r, 5));
      const res = await api.patch(`/api/v1/uploads/${d.link_id}`, { name: 'Renamed', description: 'why', category: 'expense' });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.name, 'Renamed');
      assert.equal(res.body.data.description, 'why');
      assert.equal(res.body.data.category, 'expense');
      assert.equal(res.body.data.path, d.path);
      assert.ok(res.body.data.link_modified_at > d.link_modified_at);
      const cleared = await api.patch(`/api/v1/uploads/${d.link_id}`, { description: null });
      assert.equal(cleared.body.data.description, null);
      assert.equal(cleared.body.data.name, 'Renamed');
      for (const body of [{}, { bogus: 1 }, { category: 'secret' }, { name: '' }, { name: 5 }]) {
        const bad = await api.patch(`/api/v1/uploads/${d.link_id}`, body);
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error, 'Validation error');
      }
    });

    test('SPEC Uploads 3: identical bytes share one stored file; it goes with the last link', async () => {
      const other = (await api.post('/api/v1/contacts', { first_name: 'Two', last_name: 'Links' })).body.data.id;
      const bytes = png(10, 10, seed++);
      const before = await stored();
      const a = (await upload([...forContact(), file(bytes, 'a.png')])).body.data;
      const b = (await upload([...forContact(other), file(bytes, 'b.png')])).body.data;
      assert.equal(b.path, a.path, 'one stored file');
      assert.equal(b.original_file_name, 'b.png', 'each link keeps its own name');
      assert.equal(await stored(), before + 1);
      assert.deepEqual(await api.delete(`/api/v1/uploads/${a.link_id}`).then((r) => r.body), { success: true, data: { deleted: true } });
      assert.equal(await stored(), before + 1, 'still linked from b');
      assert.equal((await fetchUrl((await api.get(`/api/v1/uploads/${b.link_id}`)).body.data.url)).statusCode, 200);
      assert.equal((await api.get(`/api/v1/uploads/${a.link_id}`)).status, 404);
      assert.equal((await api.delete(`/api/v1/uploads/${b.link_id}`)).status, 200);
      assert.equal(await stored(), before, 'the last link took the bytes');
      assert.equal((await fetchUrl(b.url)).statusCode, 404, 'a valid signature for a removed file is 404');
      // Public and private copies, and other workspaces, never share.
      const pub = (await upload([...forContact(contactId, { is_public: 'true' }), file(bytes)])).body.data;
      const priv = (await upload([...forContact(), file(bytes)])).body.data;
      assert.notEqual(pub.path, priv.path);
      const otherWs = await seedWorkspace(t.db);
      const theirContact = (await client(t.app, otherWs.token).post('/api/v1/contacts', { first_name: 'T', last_name: 'Heirs' })).body.data.id;
      const theirs = (await upload([...fields({ module_type: 'contact', module_id: theirContact }), file(bytes)], otherWs.token)).body.data;
      assert.notEqual(theirs.path, priv.path);
      assert.ok(theirs.path.startsWith(`${otherWs.workspace.id}/`));
    });

    test('SPEC Uploads 3 under concurrency: parallel deletes of links sharing a file leave no bytes and no row', async () => {
      const bytes = png(11, 11, seed++);
      const before = await stored();
      const links: number[] = [];
      for (let i = 0; i < 6; i++) links.push((await upload([...forContact(), file(bytes, `c${i}.png`)])).body.data.link_id);
      assert.equal(await stored(), before + 1);
      const results = await Promise.all(links.map((id) => api.delete(`/api/v1/uploads/${id}`)));
      assert.deepEqual(
        results.map((r) => r.status),
        links.map(() => 200),
      );
      assert.equal(await stored(), before);
      const sha = await t.db.selectFrom('stored_files').select('id').where('workspace_id', '=', ws.workspace.id).where('size', '=', bytes.length).execute();
      assert.deepEqual(sha, []);
      // The same link deleted twice at once: one wins, the other is 404.
      const id = (await upload([...forContact(), file(bytes)])).body.data.link_id;
      const twice = await Promise.all([api.delete(`/api/v1/uploads/${id}`), api.delete(`/api/v1/uploads/${id}`)]);
      assert.deepEqual(twice.map((r) => r.status).sort(), [200, 404]);
      assert.equal(await stored(), before);
    });

    test('concurrent uploads of the same bytes share one stored file', async () => {
      const bytes = png(12, 12, seed++);
      const before = await stored();
      const results = await Promise.all([1, 2, 3, 4].map((i) => upload([...forContact(), file(bytes, `p${i}.png`)])));
      assert.deepEqual(
        results.map((r) => r.status),
        [201, 201, 201, 201],
      );
      assert.equal(new Set(results.map((r) => r.body.data.path)).size, 1);
      assert.equal(await stored(), before + 1);
    });

    test('D12: deleting a contact removes its links and comments; shared bytes stay, its own go', async () => {
      const doomed = (await api.post('/api/v1/contacts', { first_name: 'Del', last_name: 'Eted' })).body.data.id;
      const keeper = (await api.post('/api/v1/contacts', { first_name: 'Kee', last_name: 'Per' })).body.data.id;
      const shared = png(13, 13, seed++);
      const before = await stored();
      const own = (await upload([...forContact(doomed), file(png(14, 14, seed++))])).body.data;
      await upload([...forContact(doomed), file(shared)]);
      const kept = (await upload([...forContact(keeper), file(shared)])).body.data;
      const comment = await api.post('/api/v1/comments', { module_type: 'contact', module_id: doomed, comment: 'bye' });
      assert.equal(comment.status, 201);
      assert.equal(await stored(), before + 2);
      assert.equal((await api.delete(`/api/v1/contacts/${doomed}`)).status, 200);
      assert.equal((await api.get(`/api/v1/uploads/${own.link_id}`)).status, 404);
      assert.equal((await api.get(`/api/v1/comments/${comment.body.data.id}`)).status, 404);
      assert.equal(await t.db.selectFrom('comments').select('id').where('id', '=', comment.body.data.id).executeTakeFirst(), undefined);
      // The bytes go once the delete has committed (the sweeper runs right after).
      for (let i = 0; i < 100 && (await stored()) !== before + 1; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await stored(), before + 1, 'only the shared file remains');
      assert.equal((await fetchUrl((await api.get(`/api/v1/uploads/${kept.link_id}`)).body.data.url)).statusCode, 200);
    });

    test('D12: a refused contact delete (409) keeps its links', async () => {
      const busy = (await api.post('/api/v1/contacts', { first_name: 'Bu', last_name: 'Sy' })).body.data.id;
      const link = (await upload([...forContact(busy), file(png(15, 15, seed++))])).body.data;
      const at = new Date().toISOString();
      await t.db
        .insertInto('requests')
        .values({ workspace_id: ws.workspace.id, number: 424242, contact_id: busy, status: 'new', created_at: at, updated_at: at })
        .execute();
      const del = await api.delete(`/api/v1/contacts/${busy}`);
      assert.equal(del.status, 409);
      assert.equal((await api.get(`/api/v1/uploads/${link.link_id}`)).status, 200);
      assert.equal((await fetchUrl(link.url)).statusCode, 200);
    });

    test('OpenAPI: every upload route, POST as multipart/form-data', async () => {
      const doc = (await t.app.inject('/api/v1/openapi.json')).json();
      assert.ok(doc.paths['/api/v1/uploads'].post.requestBody.content['multipart/form-data'].schema.properties.file);
      assert.ok(doc.paths['/api/v1/uploads'].get);
      for (const m of ['get', 'patch', 'delete']) assert.ok(doc.paths['/api/v1/uploads/{id}'][m], m);
    });
  });
}
