import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROLE_SCOPES } from '../src/http/roles.ts';
import { buildTestApp, client, keyFor, ownerSessionToken, seedWorkspace, type TestApp } from './helpers.ts';
import { STORAGE_DRIVERS, type TestStore, testStore } from './storage-drivers.ts';
import { jpeg, multipartBody, png } from './upload-fixtures.ts';

// Issue 22 (A125): the workspace's logo. PUT and DELETE /api/v1/workspace/logo,
// `logo_url` on GET /workspace, the bytes at that stable public URL, and the logo
// on quote and invoice PDFs, hub pages and HTML customer emails.

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

for (const driver of STORAGE_DRIVERS) {
  describe(`the workspace logo (${driver})`, () => {
    let t: TestApp;
    let store: TestStore;
    before(async () => {
      store = await testStore(driver);
      t = await buildTestApp(store.env);
    });
    after(async () => {
      await t.close();
      await store.close();
    });

    const setup = async () => {
      const ws = await seedWorkspace(t.db, 'Harbour Roofing');
      const owner = client(t.app, await ownerSessionToken(t.db, ws.workspace.id));
      return { ws, owner, api: client(t.app, ws.token) };
    };
    const upload = (token: string, file: Buffer, type = 'image/png', filename = 'logo.png') => {
      const { payload, contentType } = multipartBody([{ name: 'file', filename, type, data: file }]);
      return t.app.inject({ method: 'PUT', url: '/api/v1/workspace/logo', payload, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } });
    };
    /** The stored logo files of a workspace (the public bucket's folder of the workspace). */
    const storedFiles = async (workspaceId: number) =>
      (await store.objects()).filter((o) => o.startsWith(`workspaces_pub/${workspaceId}/`)).map((o) => o.split('/')[2]);
    const fetchPath = (url: string) => t.app.inject({ url: new URL(url).pathname });

    test('an owner sets a PNG, then a JPEG; GET /workspace names it at a stable public URL; DELETE removes it', async () => {
      const { ws, owner } = await setup();
      const token = await ownerSessionToken(t.db, ws.workspace.id);
      assert.equal((await owner.get('/api/v1/workspace')).body.data.logo_url, null);

      const first = await upload(token, png(8, 4, 7));
      assert.equal(first.statusCode, 200, first.body);
      const pngUrl = first.json().data.logo_url as string;
      assert.match(pngUrl, new RegExp(`^http://fieldwork\\.test/files/public/${ws.workspace.id}/[0-9a-f]{32}\\.png$`));
      assert.equal((await owner.get('/api/v1/workspace')).body.data.logo_url, pngUrl);
      const served = await fetchPath(pngUrl);
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.deepEqual(served.rawPayload, png(8, 4, 7));

      const second = await upload(token, jpeg(), 'image/jpeg', 'logo.jpg');
      assert.equal(second.statusCode, 200, second.body);
      const jpegUrl = second.json().data.logo_url as string;
      assert.match(jpegUrl, /\.jpg$/);
      assert.equal((await fetchPath(jpegUrl)).headers['content-type'], 'image/jpeg');
      assert.equal((await fetchPath(pngUrl)).statusCode, 404, 'the replaced logo is gone');
      assert.equal((await storedFiles(ws.workspace.id)).length, 1, 'its bytes too');

      const removed = await owner.delete('/api/v1/workspace/logo');
      assert.equal(removed.status, 200);
      assert.equal(removed.body.data.logo_url, null);
      assert.equal((await fetchPath(jpegUrl)).statusCode, 404);
      assert.deepEqual(await storedFiles(ws.workspace.id), []);
      assert.equal((await owner.delete('/api/v1/workspace/logo')).status, 200, 'removing no logo is a no-op');
    });

    test('SVG, text, an empty file, a lying type, over 1 MB, no file, not multipart: refused in the envelope, nothing changed', async () => {
      const { ws, owner } = await setup();
      const token = await ownerSessionToken(t.db, ws.workspace.id);
      assert.equal((await upload(token, png())).statusCode, 200);
      const before = (await owner.get('/api/v1/workspace')).body.data;
      const files = await storedFiles(ws.workspace.id);
      const big = Buffer.concat([png(), Buffer.alloc(1024 * 1024)]);
      const cases: [Buffer, string, string, RegExp][] = [
        [SVG, 'image/svg+xml', 'logo.svg', /PNG or JPEG/],
        [Buffer.from('hello'), 'image/png', 'logo.png', /PNG or JPEG/],
        [Buffer.alloc(0), 'image/png', 'logo.png', /must not be empty/],
        [Buffer.from('%PDF-1.4\n%\xff\xff\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1'), 'image/png', 'logo.png', /application\/pdf/],
        [big, 'image/png', 'logo.png', /at most 1 MB/],
      ];
      for (const [data, type, name, message] of cases) {
        const res = await upload(token, data, type, name);
        assert.equal(res.statusCode, 400, `${name} ${type}: ${res.body}`);
        const body = res.json();
        assert.equal(body.success, false);
        assert.deepEqual(body.details[0].path, ['file']);
        assert.match(body.details[0].message, message);
      }
      const none = multipartBody([{ name: 'note', value: 'no file' }]);
      const missing = await t.app.inject({ method: 'PUT', url: '/api/v1/workspace/logo', payload: none.payload, headers: { authorization: `Bearer ${token}`, 'content-type': none.contentType } });
      assert.equal(missing.statusCode, 400, missing.body);
      const json = await owner.put('/api/v1/workspace/logo', { file: 'x' });
      assert.equal(json.status, 415);
      assert.equal(json.body.success, false);

      assert.deepEqual((await owner.get('/api/v1/workspace')).body.data, before);
      assert.deepEqual(await storedFiles(ws.workspace.id), files, 'no bytes stored or removed');
      assert.deepEqual(store.staging(), [], 'staging is empty');
    });

    test('a key without workspace:write and a member are refused by the API; another workspace never sees the logo', async () => {
      const { ws, owner } = await setup();
      const readOnly = await keyFor(t.db, ws.workspace.id, 'rest', ['workspace:read']);
      const refused = await upload(readOnly, png());
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json(), { success: false, error: 'Insufficient permissions. Required scope: workspace:write' });
      // A member's or a manager's session holds its role's scopes (src/http/roles.ts): neither has workspace:write.
      for (const role of ['member', 'manager'] as const) {
        const asRole = await keyFor(t.db, ws.workspace.id, 'rest', [...ROLE_SCOPES[role]]);
        assert.equal((await upload(asRole, png())).statusCode, 403, role);
      }
      assert.equal((await client(t.app, readOnly).delete('/api/v1/workspace/logo')).status, 403);
      assert.equal((await owner.get('/api/v1/workspace')).body.data.logo_url, null);
      assert.deepEqual(await storedFiles(ws.workspace.id), []);

      assert.equal((await upload(ws.token, png(5, 5, 3))).statusCode, 200, 'a General key has workspace:write');
      const other = await seedWorkspace(t.db, 'Other Co');
      const otherApi = client(t.app, other.token);
      assert.equal((await otherApi.get('/api/v1/workspace')).body.data.logo_url, null);
      assert.equal((await otherApi.delete('/api/v1/workspace/logo')).status, 200);
      assert.notEqual((await owner.get('/api/v1/workspace')).body.data.logo_url, null, "the other workspace's DELETE leaves ours");
    });

    test('the same Idempotency-Key replays the answer without storing the logo twice', async () => {
      const { ws } = await setup();
      const { payload, contentType } = multipartBody([{ name: 'file', filename: 'logo.png', type: 'image/png', data: png(4, 4, 9) }]);
      const send = () =>
        t.app.inject({ method: 'PUT', url: '/api/v1/workspace/logo', payload, headers: { authorization: `Bearer ${ws.token}`, 'content-type': contentType, 'idempotency-key': 'logo-once' } });
      const a = await send();
      const b = await send();
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.body, a.body);
      assert.equal((await storedFiles(ws.workspace.id)).length, 1);
    });

    test('the logo is drawn on quote and invoice PDFs, heads hub pages and HTML customer emails', async () => {
      const { ws, api } = await setup();
      const contactId = (await api.post('/api/v1/contacts', { first_name: 'Cara', last_name: 'Customer', email: 'cara@example.test' })).body.data.id;
      const items = [{ name: 'Ridge tiles', unitPrice: 120, quantity: 2 }];
      const quoteId = (await api.post('/api/v1/quotes', { contact_id: contactId, name: 'Ridge', line_items: items })).body.data.id;
      const invoiceId = (await api.post('/api/v1/invoices', { contact_id: contactId, name: 'Ridge', line_items: items })).body.data.id;
      const pdf = async (url: string) => (await t.app.inject({ url, headers: { authorization: `Bearer ${ws.token}` } })).rawPayload.toString('latin1');
      const IMAGE = /\/Subtype \/Image/;
      assert.doesNotMatch(await pdf(`/api/v1/quotes/${quoteId}/pdf`), IMAGE, 'no logo, no image');
      const hubUrl = new URL((await api.post(`/api/v1/contacts/${contactId}/hub-link`)).body.data.url).pathname;
      assert.doesNotMatch((await t.app.inject({ url: hubUrl })).body, /<img/);

      const logoUrl = (await upload(ws.token, png(12, 6, 5))).json().data.logo_url as string;
      for (const url of [`/api/v1/quotes/${quoteId}/pdf`, `/api/v1/invoices/${invoiceId}/pdf`]) {
        const bytes = await pdf(url);
        assert.match(bytes, IMAGE, url);
        assert.match(bytes, /\/Width 12\s*\/Height 6|\/Height 6[\s\S]*\/Width 12|\/Width 12[\s\S]*\/Height 6/, 'the logo at its size');
      }
      const home = await t.app.inject({ url: hubUrl });
      assert.match(home.body, new RegExp(`<img class="logo" src="${new URL(logoUrl).pathname}" alt="">`));
      assert.match(String(home.headers['content-security-policy']), /img-src 'self'/, "the logo's same-origin path is allowed");

      assert.equal((await api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: quoteId })).status, 201);
      const quotePage = await t.app.inject({ url: `${hubUrl}/quotes/${quoteId}` });
      assert.equal(quotePage.statusCode, 200);
      assert.match(quotePage.body, /<img class="logo" src="\/files\/public\//);
      const sent = await t.db.selectFrom('messages').selectAll().where('workspace_id', '=', ws.workspace.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
      assert.ok(sent.body_html?.includes(`<img src="${logoUrl}" alt="Harbour Roofing"`), sent.body_html ?? '');
      const preview = await api.post('/api/v1/notification-settings/preview', { type: 'invoice_to_customer' });
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      assert.ok(preview.body.data.html.includes(logoUrl));
    });
  });
}
