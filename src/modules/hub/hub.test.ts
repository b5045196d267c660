import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, outboxEvents, seedUser, seedWorkspace, type TestApp, withinOneWindow } from '../../../test/helpers.ts';
import { addCustomField } from '../custom-fields/custom-fields.service.ts';
import { listInbox } from '../notifications-internal/internal-notifications.ts';
import { setWorkspace } from '../workspace/workspace.service.ts';
import { pdfText } from '../../../test/pdf-text.ts';

// EXTENSIONS E7, E8, E8a: hub links, the hub's pages and forms, and what they refuse.

type Ws = Awaited<ReturnType<typeof seedWorkspace>>;
const SCRIPT = '<script>alert(1)</script>';
const LIMIT = 30;
const TTL_MS = 2 * 3_600_000;

describe('customer hub', () => {
  let t: TestApp;
  let ws: Ws;
  let api: Client;
  let ip = 0;

  before(async () => {
    t = await buildTestApp({ HUB_LINK_TTL: '2h', HUB_RATE_LIMIT: `${LIMIT}/1m` });
    ws = await seedWorkspace(t.db, `Hub Co ${randomBytes(3).toString('hex')}`);
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  /** A hub request from its own client address (the per-address limit is tested on its own). */
  const hub = async (method: 'GET' | 'POST', url: string, body?: string | object, remoteAddress = `10.0.${(++ip >> 8) & 255}.${ip & 255}`) => {
    const form = typeof body === 'string';
    const res = await t.app.inject({
      method,
      url,
      remoteAddress,
      ...(body !== undefined && {
        payload: form ? body : JSON.stringify(body),
        headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      }),
    });
    return { status: res.statusCode, body: res.body, headers: res.headers };
  };
  const contact = async (w: Ws = ws, fields: Record<string, unknown> = {}) => {
    const res = await client(t.app, w.token).post('/api/v1/contacts', { first_name: 'Carla', last_name: 'Customer', email: `c${randomBytes(3).toString('hex')}@example.test`, ...fields });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const link = async (contactId: number, w: Ws = ws) => {
    const res = await client(t.app, w.token).post(`/api/v1/contacts/${contactId}/hub-link`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return new URL(res.body.data.url).pathname; // /hub/<token>
  };
  const quote = async (contactId: number, status = 'awaiting_response', w: Ws = ws, extra: Record<string, unknown> = {}) => {
    const c = client(t.app, w.token);
    const res = await c.post('/api/v1/quotes', {
      contact_id: contactId,
      name: 'Roof repair',
      line_items: [
        { name: 'Tiles', description: 'Clay tiles', quantity: 3, unitPrice: 40 },
        { name: 'Gutter guard', unitPrice: 25, optional: true },
      ],
      tax_rate: 10,
      ...extra,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    if (status !== 'draft') assert.equal((await c.put(`/api/v1/quotes/${res.body.data.id}/status`, { status })).status, 200);
    return res.body.data.id as number;
  };
  const getQuote = async (id: number) => (await api.get(`/api/v1/quotes/${id}`)).body.data;
  const jobsOf = async (quoteId: number) => (await t.db.selectFrom('jobs').select('id').where('quote_id', '=', quoteId).execute()).length;
  const assertHeaders = (headers: Record<string, unknown>) => {
    assert.equal(headers['cache-control'], 'no-store');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.equal(headers['x-robots-tag'], 'noindex');
    const csp = String(headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  };

  describe('E7 links', () => {
    test('POST /contacts/:id/hub-link: 201 {url, expires_at}; 256-bit token kept only as its SHA-256; HUB_LINK_TTL', async () => {
      const id = await contact();
      const before = Date.now();
      const res = await api.post(`/api/v1/contacts/${id}/hub-link`);
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body.data).sort(), ['expires_at', 'url']);
      const m = /^http:\/\/fieldwork\.test\/hub\/([A-Za-z0-9_-]{43})$/.exec(res.body.data.url);
      assert.ok(m, res.body.data.url);
      assert.equal(Buffer.from(m[1], 'base64url').length, 32);
      const expires = Date.parse(res.body.data.expires_at);
      assert.ok(expires >= before + TTL_MS && expires <= Date.now() + TTL_MS);
      const rows = await t.db.selectFrom('hub_links').selectAll().where('contact_id', '=', id).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0].token_hash, createHash('sha256').update(m[1]).digest('hex'));
      assert.ok(!JSON.stringify(rows).includes(m[1]), 'the token itself is stored nowhere');
      // Two links are two tokens.
      assert.notEqual((await api.post(`/api/v1/contacts/${id}/hub-link`)).body.data.url, res.body.data.url);
    });

    test('hub-link: another workspace\'s or an absent contact is 404; a read-only key is 403', async () => {
      const other = await seedWorkspace(t.db);
      const theirs = await contact(other);
      assert.equal((await api.post(`/api/v1/contacts/${theirs}/hub-link`)).status, 404);
      assert.equal((await api.post('/api/v1/contacts/999999/hub-link')).status, 404);
      const reader = await keyFor(t.db, ws.workspace.id, 'general', ['contacts:read']);
      assert.equal((await client(t.app, reader).post(`/api/v1/contacts/${await contact()}/hub-link`)).status, 403);
      assert.equal(await t.db.selectFrom('hub_links').select('id').where('contact_id', '=', theirs).executeTakeFirst(), undefined);
    });

    test('DELETE /contacts/:id/hub-links revokes every link of the contact (D12 envelope), not other contacts\'', async () => {
      const id = await contact();
      const [a, b] = [await link(id), await link(id)];
      const keep = await link(await contact());
      assert.equal((await hub('GET', a)).status, 200);
      const res = await api.delete(`/api/v1/contacts/${id}/hub-links`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { success: true, data: { deleted: true } });
      assert.equal((await hub('GET', a)).status, 404);
      assert.equal((await hub('GET', b)).status, 404);
      assert.equal((await hub('GET', keep)).status, 200);
      assert.equal((await api.delete('/api/v1/contacts/999999/hub-links')).status, 404);
    });

    test('customer messages carry a fresh link to the document ({{link}}), minted with the message', async () => {
      const id = await contact();
      const q = await quote(id, 'draft');
      const send = async (type: string, moduleId: number) => {
        const res = await api.post('/api/v1/notifications', { type, module_id: moduleId });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const m = await t.db.selectFrom('messages').selectAll().where('workspace_id', '=', ws.workspace.id).where('channel', '=', 'email').orderBy('id', 'desc').executeTakeFirstOrThrow();
        return m;
      };
      const first = await send('quote_to_customer', q);
      const url = /http:\/\/fieldwork\.test(\/hub\/[A-Za-z0-9_-]{43}\/quotes\/(\d+))/.exec(first.body_text);
      assert.ok(url, first.body_text);
      assert.equal(Number(url[2]), q);
      assert.ok(first.body_html?.includes(url[0]), 'the HTML part has it too');
      const page = await hub('GET', url[1]);
      assert.equal(page.status, 200);
      assert.match(page.body, /Roof repair/);
      const again = await send('quote_to_customer', q);
      assert.notEqual(/\/hub\/[^/\s]+/.exec(again.body_text)?.[0], /\/hub\/[^/\s]+/.exec(first.body_text)?.[0], 'a fresh link per message');

      const inv = (await api.post('/api/v1/invoices', { contact_id: id, name: 'Spring', line_items: [{ name: 'Work', unitPrice: 10 }] })).body.data.id;
      const invoiceMail = await send('invoice_to_customer', inv);
      const invUrl = new RegExp(`http://fieldwork\\.test(/hub/[A-Za-z0-9_-]{43}/invoices/${inv})`).exec(invoiceMail.body_text);
      assert.ok(invUrl, invoiceMail.body_text);
      assert.equal((await hub('GET', invUrl[1])).status, 200);

      const job = (await api.post('/api/v1/jobs', { contact_id: id, name: 'Roof' })).body.data.id;
      const event = (await api.post('/api/v1/events', { start_date: '2099-01-02', end_date: '2099-01-02', start_time: '09:00', job_id: job, name: 'Visit' })).body.data.id;
      const reminder = await send('appointment_reminder', event);
      const home = /http:\/\/fieldwork\.test(\/hub\/[A-Za-z0-9_-]{43})(\s|$)/.exec(reminder.body_text);
      assert.ok(home, reminder.body_text);
      assert.match((await hub('GET', home[1])).body, /Visit/);

      // A workspace's own template may place {{link}}.
      await setWorkspace(t.db, ws.workspace.id, { 'templates.quote_to_customer.text': 'Here: {{link}} (#{{number}})' });
      const custom = await send('quote_to_customer', q);
      assert.match(custom.body_text, new RegExp(`^Here: http://fieldwork\\.test/hub/[A-Za-z0-9_-]{43}/quotes/${q} \\(#\\d+\\)$`));
      await setWorkspace(t.db, ws.workspace.id, { 'templates.quote_to_customer.text': '' });
    });
  });

  describe('E8a refusals', () => {
    test('guessed, malformed and revoked tokens: the same plain 404 page, naming nothing; an expired link names the business (A64)', async () => {
      const id = await contact();
      const good = await link(id);
      const q = await quote(id);
      await t.db.updateTable('hub_links').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('contact_id', '=', id).execute();
      await setWorkspace(t.db, ws.workspace.id, { phone: '+1 555 0199', email: 'office@roofers.test' });
      for (const url of [`${good}`, `${good}/quotes/${q}`]) {
        const res = await hub('GET', url);
        assert.equal(res.status, 404, url);
        assert.match(res.body, /<h1>Link expired<\/h1>/);
        assert.ok(res.body.includes(`Please ask ${ws.workspace.name} for a new link.`), res.body);
        assert.ok(res.body.includes('+1 555 0199') && res.body.includes('office@roofers.test'), 'how to reach the business');
        assert.ok(!res.body.includes('Roof'), 'no document');
        assertHeaders(res.headers);
      }
      await setWorkspace(t.db, ws.workspace.id, { phone: '', email: '' });
      const guessed = `/hub/${randomBytes(32).toString('base64url')}`;
      for (const url of [guessed, `${guessed}/quotes/${q}`, '/hub/short', '/hub/x/y/z']) {
        const res = await hub('GET', url);
        assert.equal(res.status, 404, url);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(res.body, /Page not found/);
        assert.ok(!res.body.includes(ws.workspace.name) && !res.body.includes('Roof'), 'no workspace, no document');
        assertHeaders(res.headers);
      }
      assert.equal((await hub('POST', `${good}/quotes/${q}/approve`, 'signature_name=Carla')).status, 404);
      assert.equal((await getQuote(q)).status, 'awaiting_response', 'nothing changed');
    });

    test("another contact's or workspace's document, and a draft, are 404 with a valid token; nothing changes", async () => {
      const mine = await contact();
      const path = await link(mine);
      const neighbour = await quote(await contact());
      const other = await seedWorkspace(t.db);
      const foreign = await quote(await contact(other), 'awaiting_response', other);
      const draft = await quote(mine, 'draft');
      const draftInvoice = (await api.post('/api/v1/invoices', { contact_id: mine, name: 'Draft' })).body.data.id;
      for (const url of [`${path}/quotes/${neighbour}`, `${path}/quotes/${foreign}`, `${path}/quotes/${draft}`, `${path}/invoices/${draftInvoice}`, `${path}/quotes/abc`, `${path}/quotes/0`]) {
        const res = await hub('GET', url);
        assert.equal(res.status, 404, url);
        assert.ok(!res.body.includes('Roof'));
      }
      for (const q of [neighbour, draft]) {
        assert.equal((await hub('POST', `${path}/quotes/${q}/approve`, { signature_name: 'Carla' })).status, 404);
        assert.equal((await hub('POST', `${path}/quotes/${q}/decline`, {})).status, 404);
      }
      assert.equal((await getQuote(neighbour)).status, 'awaiting_response');
      assert.equal((await getQuote(draft)).status, 'draft');
      assert.equal((await client(t.app, other.token).get(`/api/v1/quotes/${foreign}`)).body.data.status, 'awaiting_response');
      const home = await hub('GET', path);
      assert.ok(!home.body.includes(`/quotes/${draft}"`) && !home.body.includes(`/invoices/${draftInvoice}"`), 'drafts are not listed');
    });

    test('every text from the database is escaped, and internal data never shows', async () => {
      const id = await contact(ws, { first_name: SCRIPT, last_name: `"><img src=x>` });
      const path = await link(id);
      const q = await quote(id, 'awaiting_response', ws, {
        name: SCRIPT,
        message: 'internal? no: the quote message',
        custom_fields: null,
        line_items: [{ name: SCRIPT, description: `<b>${SCRIPT}</b>`, unitPrice: 5 }],
      });
      await api.post('/api/v1/comments', { module_type: 'quote', module_id: q, body: 'SECRET-COMMENT' });
      const inv = (await api.post('/api/v1/invoices', { contact_id: id, name: SCRIPT, line_items: [{ name: SCRIPT, unitPrice: 5 }] })).body.data.id;
      await api.put(`/api/v1/invoices/${inv}/status`, { status: 'sent' });
      const job = (await api.post('/api/v1/jobs', { contact_id: id })).body.data.id;
      await api.post('/api/v1/events', { start_date: '2099-01-01', end_date: '2099-01-01', job_id: job, name: SCRIPT });
      await hub('POST', `${path}/quotes/${q}/request-changes`, { message: SCRIPT });
      const q2 = await quote(id);
      await hub('POST', `${path}/quotes/${q2}/approve`, { signature_name: SCRIPT, message: SCRIPT });
      for (const url of [path, `${path}/quotes/${q}`, `${path}/quotes/${q2}`, `${path}/invoices/${inv}`, `${path}/request`]) {
        const res = await hub('GET', url);
        assert.equal(res.status, 200, url);
        assert.ok(!res.body.includes('<script>') && !res.body.includes('<img') && !res.body.includes('<b>'), `${url} escapes`);
        assert.ok(!res.body.includes('SECRET-COMMENT'));
      }
      assert.match((await hub('GET', `${path}/quotes/${q2}`)).body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    });

    test('HUB_RATE_LIMIT per token (any address) and per address (any token): 429 page with the hub headers', async () => {
      await withinOneWindow(60_000);
      const path = await link(await contact());
      for (let i = 0; i < LIMIT; i++) assert.equal((await hub('GET', path)).status, 200, `request ${i + 1}`);
      const over = await hub('GET', path);
      assert.equal(over.status, 429);
      assert.match(over.body, /Too many requests/);
      assertHeaders(over.headers);
      assert.ok(Number(over.headers['retry-after']) > 0);

      const address = '192.0.2.77';
      const tokens = await Promise.all(Array.from({ length: 3 }, async () => link(await contact())));
      for (let i = 0; i < LIMIT; i++) assert.equal((await hub('GET', tokens[i % 3], undefined, address)).status, 200);
      assert.equal((await hub('GET', tokens[0], undefined, address)).status, 429);
      assert.equal((await hub('GET', tokens[0])).status, 200, 'another address with that token still gets in');
    });
  });

  describe('E8 pages and answers', () => {
    test("F101: a workspace that names no currency shows its country's on every amount", async () => {
      const gb = await seedWorkspace(t.db, `No Currency ${randomBytes(3).toString('hex')}`);
      await t.db.updateTable('workspaces').set({ currency: null, country: 'GB' }).where('id', '=', gb.workspace.id).execute();
      const id = await contact(gb);
      const path = await link(id, gb);
      const q = await quote(id, 'awaiting_response', gb);
      const home = await hub('GET', path);
      assert.equal(home.status, 200);
      assert.match(home.body, /Total £132\.00/);
      const page = await hub('GET', `${path}/quotes/${q}`);
      assert.match(page.body, /£120\.00/, 'line totals too');
      assert.doesNotMatch(page.body, /\$\d/, 'no dollar amounts');
    });

    test('E9 from the hub: the PDFs of the link\'s quote and invoice; a draft, another contact\'s document, a bad token: 404', async () => {
      const id = await contact(ws, { first_name: 'Petra', last_name: 'Pdf' });
      const path = await link(id);
      const q = await quote(id);
      const qNumber = (await getQuote(q)).number;
      const inv = (await api.post('/api/v1/invoices', { contact_id: id, name: 'Pdf work', line_items: [{ name: 'Boiler service', unitPrice: 80 }] })).body.data;
      await api.put(`/api/v1/invoices/${inv.id}/status`, { status: 'sent' });
      const draft = await quote(id, 'draft');
      const stranger = await quote(await contact());
      const pdf = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: `10.9.${++ip & 255}.1` });

      const quoteRes = await pdf(`${path}/quotes/${q}/pdf`);
      assert.equal(quoteRes.statusCode, 200, quoteRes.body);
      assert.equal(quoteRes.headers['content-type'], 'application/pdf');
      assert.equal(quoteRes.headers['content-disposition'], `attachment; filename="quote-${qNumber}.pdf"`);
      assertHeaders(quoteRes.headers);
      const quoteText = (await pdfText(quoteRes.rawPayload)).map((p) => p.text).join(' ');
      assert.match(quoteText, /Petra Pdf/);
      assert.match(quoteText, /Tiles/);

      const invoiceRes = await pdf(`${path}/invoices/${inv.id}/pdf`);
      assert.equal(invoiceRes.statusCode, 200, invoiceRes.body);
      assert.equal(invoiceRes.headers['content-disposition'], `attachment; filename="invoice-${inv.number}.pdf"`);
      assert.match((await pdfText(invoiceRes.rawPayload)).map((p) => p.text).join(' '), /Boiler service/);

      for (const url of [`${path}/quotes/${draft}/pdf`, `${path}/quotes/${stranger}/pdf`, `${path}/invoices/${q}/pdf`, `/hub/${'x'.repeat(43)}/quotes/${q}/pdf`]) {
        const res = await pdf(url);
        assert.equal(res.statusCode, 404, url);
        assert.match(String(res.headers['content-type']), /text\/html/);
        assertHeaders(res.headers);
      }
    });

    test('home: the contact, non-draft quotes and invoices with totals and balance, upcoming events; headers', async () => {
      const id = await contact(ws, { first_name: 'Hanna', last_name: 'Home' });
      const path = await link(id);
      const q = await quote(id);
      const inv = (await api.post('/api/v1/invoices', { contact_id: id, name: 'March work', line_items: [{ name: 'Work', unitPrice: 100 }] })).body.data.id;
      await api.put(`/api/v1/invoices/${inv}/status`, { status: 'sent' });
      await api.post(`/api/v1/invoices/${inv}/payments`, { amount: 30 });
      const job = (await api.post('/api/v1/jobs', { contact_id: id })).body.data.id;
      await api.post('/api/v1/events', { start_date: '2099-05-06', end_date: '2099-05-06', start_time: '14:30', end_time: '15:30', job_id: job, name: 'Upcoming visit' });
      await api.post('/api/v1/events', { start_date: '2000-05-06', end_date: '2000-05-06', job_id: job, name: 'Past visit' });
      const cancelled = (await api.post('/api/v1/events', { start_date: '2099-05-07', end_date: '2099-05-07', job_id: job, name: 'Cancelled visit' })).body.data.id;
      await api.put(`/api/v1/events/${cancelled}/status`, { status: 'cancelled' });
      const res = await hub('GET', path);
      assert.equal(res.status, 200);
      assertHeaders(res.headers);
      assert.match(res.body, /Hanna Home/);
      assert.match(res.body, new RegExp(ws.workspace.name));
      assert.match(res.body, new RegExp(`href="${path}/quotes/${q}"`));
      assert.match(res.body, /Total \$132\.00/);
      assert.match(res.body, new RegExp(`href="${path}/invoices/${inv}"`));
      assert.match(res.body, /Total \$100\.00 · Balance \$70\.00/);
      assert.match(res.body, /Upcoming visit/);
      assert.match(res.body, /May 6, 2099, 14:30 to 15:30/);
      assert.doesNotMatch(res.body, /Past visit|Cancelled visit/);
      assert.equal((await hub('GET', '/hub/hub.css')).status, 200);
    });

    test('issue 25: a completed visit is not upcoming, and cannot be confirmed', async () => {
      const id = await contact();
      const path = await link(id);
      const job = (await api.post('/api/v1/jobs', { contact_id: id })).body.data.id;
      const done = (await api.post('/api/v1/events', { start_date: '2099-06-01', end_date: '2099-06-01', job_id: job, name: 'Finished visit' })).body.data.id;
      await api.post('/api/v1/events', { start_date: '2099-06-02', end_date: '2099-06-02', job_id: job, name: 'Next visit' });
      assert.equal((await api.put(`/api/v1/events/${done}/status`, { status: 'completed' })).status, 200);
      const home = await hub('GET', path);
      assert.match(home.body, /Next visit/);
      assert.doesNotMatch(home.body, /Finished visit/);
      assert.equal((await hub('POST', `${path}/events/${done}/confirm`)).status, 404);
      assert.equal((await api.get(`/api/v1/events/${done}`)).body.data.customer_confirmed_at, null);
    });

    test('issue 25: the quote page shows its message and payment instructions, the invoice page its message and how to pay', async () => {
      const id = await contact();
      const path = await link(id);
      const q = await quote(id, 'awaiting_response', ws, { message: 'Thanks for having us out.\nWe can start Monday.', payment_instructions: 'Deposit by bank transfer & <card>' });
      const quotePage = (await hub('GET', `${path}/quotes/${q}`)).body;
      assert.ok(quotePage.includes('Thanks for having us out.\nWe can start Monday.'), quotePage);
      assert.ok(quotePage.includes('Deposit by bank transfer &amp; &lt;card&gt;'), 'escaped');
      const inv = (await api.post('/api/v1/invoices', { contact_id: id, line_items: [{ name: 'Work', unitPrice: 10 }], message: 'Thank you for your business.', payment_instructions: 'Pay to IBAN DE00 1234' })).body.data.id;
      await api.put(`/api/v1/invoices/${inv}/status`, { status: 'sent' });
      const invoicePage = (await hub('GET', `${path}/invoices/${inv}`)).body;
      assert.match(invoicePage, /Thank you for your business\./);
      assert.match(invoicePage, /How to pay<\/h2>\n<div class="message">Pay to IBAN DE00 1234<\/div>/);
    });

    test('issue 25: one rendering of a percentage deposit for the email and the hub; the hub link of the HTML email is a link', async () => {
      const id = await contact();
      const q = await quote(id, 'draft', ws, { deposit: 25, deposit_unit: '%' }); // total $132.00 (tax 10%)
      assert.equal((await api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: q })).status, 201);
      const m = await t.db.selectFrom('messages').selectAll().where('workspace_id', '=', ws.workspace.id).where('module_id', '=', q).executeTakeFirstOrThrow();
      assert.ok(m.body_text.includes('Deposit: 25% ($33.00)'), m.body_text);
      assert.ok(m.body_html?.includes('Deposit: 25% ($33.00)'), m.body_html ?? '');
      const url = /View and approve the quote online: (\S+)/.exec(m.body_text)![1];
      assert.ok(m.body_html?.includes(`<a href="${url}">${url}</a>`), m.body_html ?? '');
      const page = (await hub('GET', new URL(url).pathname)).body;
      assert.match(page, /<dt>Deposit<\/dt><dd>25% \(\$33\.00\)<\/dd>/);
    });

    test('quote page: line items (optional marked), subtotal, discount, tax, total, deposit, expire_on, three forms', async () => {
      const id = await contact();
      const path = await link(id);
      const q = await quote(id, 'awaiting_response', ws, { deposit: 20, deposit_unit: '$', expire_on: '2099-03-05', discount: 10, discount_unit: '$' });
      const res = await hub('GET', `${path}/quotes/${q}`);
      assert.equal(res.status, 200);
      for (const text of ['Tiles', 'Clay tiles', '3 × $40.00 = <span class="strong">$120.00', 'Gutter guard <span class="tag">Optional</span>', '$120.00', '$10.00', '$11.00', '$121.00', '$20.00', 'March 5, 2099']) {
        assert.ok(res.body.includes(text), `shows ${text}`);
      }
      for (const action of ['approve', 'request-changes', 'decline']) assert.match(res.body, new RegExp(`action="${path}/quotes/${q}/${action}"`));
      assert.match(res.body, /name="signature_name"[^>]*required/);
    });

    test('approve (form post): 303 to the page showing it; accepted, one job, quote_accepted, approval on the GET; team notified; twice is 409', async () => {
      const owner = ws.owner.user_id;
      const [admin, manager, member] = [await seedUser(t.db, ws.workspace.id, 'admin'), await seedUser(t.db, ws.workspace.id, 'manager'), await seedUser(t.db, ws.workspace.id, 'member')];
      const id = await contact();
      const path = await link(id);
      const q = await quote(id);
      assert.equal((await getQuote(q)).approval, null, 'null before');
      const res = await hub('POST', `${path}/quotes/${q}/approve`, 'signature_name=Carla+Customer&message=Go+ahead');
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, `${path}/quotes/${q}`);
      assertHeaders(res.headers);
      const detail = await getQuote(q);
      assert.equal(detail.status, 'accepted');
      assert.equal(detail.approval.signature_name, 'Carla Customer');
      assert.equal(detail.approval.message, 'Go ahead');
      assert.ok(Math.abs(Date.parse(detail.approval.approved_at) - Date.now()) < 60_000);
      assert.ok(detail.job, 'D14: its job');
      assert.equal(await jobsOf(q), 1);
      const accepted = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'quote_accepted' && e.data.id === q);
      assert.equal(accepted.length, 1);
      assert.equal((accepted[0].data.approval as { signature_name: string }).signature_name, 'Carla Customer');
      const page = await hub('GET', res.headers.location as string);
      assert.match(page.body, /You approved this quote/);
      assert.match(page.body, /Signed by Carla Customer/);
      for (const user of [owner, admin.user_id, manager.user_id]) {
        const n = (await listInbox(t.db, ws.workspace.id, user)).filter((x) => x.name === 'quote_customer_response' && x.module_id === q);
        assert.equal(n.length, 1, 'owners, admins and managers hear of it');
        assert.equal((n[0].data as { response: string }).response, 'approved');
      }
      assert.equal((await listInbox(t.db, ws.workspace.id, member.user_id)).filter((x) => x.name === 'quote_customer_response').length, 0);

      const again = await hub('POST', `${path}/quotes/${q}/approve`, { signature_name: 'Someone Else' });
      assert.equal(again.status, 409);
      assert.match(again.body, /no longer waiting for an answer/);
      assertHeaders(again.headers);
      assert.equal((await getQuote(q)).approval.signature_name, 'Carla Customer', 'nothing changed');
      assert.equal(await jobsOf(q), 1);
    });

    test('notify.quote_customer_response=false silences it for one user', async () => {
      const manager = await seedUser(t.db, ws.workspace.id, 'manager');
      await t.db.updateTable('users').set({ preferences: JSON.stringify({ quote_customer_response: false }) }).where('user_id', '=', manager.user_id).execute();
      const id = await contact();
      const q = await quote(id);
      assert.equal((await hub('POST', `${await link(id)}/quotes/${q}/decline`, {})).status, 303);
      assert.equal((await listInbox(t.db, ws.workspace.id, manager.user_id)).filter((x) => x.name === 'quote_customer_response').length, 0);
      assert.equal((await listInbox(t.db, ws.workspace.id, ws.owner.user_id)).filter((x) => x.name === 'quote_customer_response' && x.module_id === q).length, 1);
    });

    test('an empty signature, a missing change request message: 400 on the page, nothing changed', async () => {
      const id = await contact();
      const path = await link(id);
      const q = await quote(id);
      for (const [action, body] of [
        ['approve', 'signature_name=++&message=hi'],
        ['approve', {}],
        ['approve', { signature_name: 42 }],
        ['approve', { signature_name: 'Ada \ud800 Lovelace' }], // E18: an unpaired surrogate (JSON escapes it), refused like U+0000
        ['approve', 'signature_name=Ada&message=%00'],
        ['request-changes', 'message='],
      ] as const) {
        const res = await hub('POST', `${path}/quotes/${q}/${action}`, body);
        assert.equal(res.status, 400, `${action} ${JSON.stringify(body)}`);
        assert.match(res.body, /role="alert"/);
        assertHeaders(res.headers);
      }
      const detail = await getQuote(q);
      assert.equal(detail.status, 'awaiting_response');
      assert.equal(detail.approval, null);
      assert.equal(detail.status_changes.length, 1);
    });

    test('approve after the office declined: 409, nothing changed', async () => {
      const id = await contact();
      const q = await quote(id, 'declined');
      const res = await hub('POST', `${await link(id)}/quotes/${q}/approve`, { signature_name: 'Carla' });
      assert.equal(res.status, 409);
      const detail = await getQuote(q);
      assert.equal(detail.status, 'declined');
      assert.equal(detail.approval, null);
      assert.equal(await jobsOf(q), 0);
    });

    test('request changes (JSON): back to draft with the message as the status comment; the page says so; then 409', async () => {
      const id = await contact();
      const path = await link(id);
      const q = await quote(id);
      const res = await hub('POST', `${path}/quotes/${q}/request-changes`, { message: 'Cheaper tiles, please' });
      assert.equal(res.status, 303);
      const detail = await getQuote(q);
      assert.equal(detail.status, 'draft');
      assert.deepEqual(detail.status_changes.at(-1).comment, 'Cheaper tiles, please');
      assert.equal(detail.status_changes.at(-1).status, 'draft');
      const page = await hub('GET', `${path}/quotes/${q}`);
      assert.equal(page.status, 200);
      assert.match(page.body, /You asked for changes/);
      assert.doesNotMatch(page.body, /Clay tiles/, "the draft's contents are the office's work in progress");
      assert.equal((await hub('POST', `${path}/quotes/${q}/decline`, {})).status, 409);
      // The office edits and sends it again: an open quote once more.
      await api.put(`/api/v1/quotes/${q}/status`, { status: 'awaiting_response' });
      assert.match((await hub('GET', `${path}/quotes/${q}`)).body, /Approve quote/);
    });

    test('decline: declined with the message as the status comment; the page says so', async () => {
      const id = await contact();
      const path = await link(id);
      const q = await quote(id);
      assert.equal((await hub('POST', `${path}/quotes/${q}/decline`, 'message=Too+expensive')).status, 303);
      const detail = await getQuote(q);
      assert.equal(detail.status, 'declined');
      assert.equal(detail.status_changes.at(-1).comment, 'Too expensive');
      const page = await hub('GET', `${path}/quotes/${q}`);
      assert.match(page.body, /You declined this quote/);
      assert.match(page.body, /Too expensive/);
    });

    test('race: the customer approves while the office accepts: one job, quote_accepted once', async () => {
      for (let round = 0; round < 5; round++) {
        const id = await contact();
        const path = await link(id);
        const q = await quote(id);
        const [customer, office] = await Promise.all([
          hub('POST', `${path}/quotes/${q}/approve`, { signature_name: 'Carla' }),
          api.put(`/api/v1/quotes/${q}/status`, { status: 'accepted' }),
        ]);
        assert.ok([303, 409].includes(customer.status), String(customer.status));
        assert.equal(office.status, 200);
        assert.equal((await getQuote(q)).status, 'accepted');
        assert.equal(await jobsOf(q), 1);
        assert.equal((await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'quote_accepted' && e.data.id === q).length, 1);
      }
    });

    test('invoice page: number, items, totals, amount paid, balance, due date, payments', async () => {
      const id = await contact();
      const path = await link(id);
      const inv = (await api.post('/api/v1/invoices', { contact_id: id, name: 'April', due_date: '2099-04-30', line_items: [{ name: 'Mowing', quantity: 2, unitPrice: 50 }] })).body.data;
      await api.put(`/api/v1/invoices/${inv.id}/status`, { status: 'sent' });
      await api.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 25.5, method: 'bank_transfer', paid_on: '2099-04-01' });
      const res = await hub('GET', `${path}/invoices/${inv.id}`);
      assert.equal(res.status, 200);
      for (const text of [`Invoice #${inv.number}`, 'April', 'Mowing', '2 × $50.00', '$100.00', 'Amount paid', '$25.50', 'Balance', '$74.50', 'April 30, 2099', 'April 1, 2099', 'bank transfer']) {
        assert.ok(res.body.includes(text), `shows ${text}`);
      }
    });

    test("confirm an event: customer_confirmed_at on the event's GET (null before), 303 home; another contact's event 404", async () => {
      const id = await contact();
      const path = await link(id);
      const job = (await api.post('/api/v1/jobs', { contact_id: id })).body.data.id;
      const event = (await api.post('/api/v1/events', { start_date: '2099-02-03', end_date: '2099-02-03', job_id: job, name: 'Check' })).body.data.id;
      assert.equal((await api.get(`/api/v1/events/${event}`)).body.data.customer_confirmed_at, null);
      const res = await hub('POST', `${path}/events/${event}/confirm`);
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, path);
      const at = (await api.get(`/api/v1/events/${event}`)).body.data.customer_confirmed_at;
      assert.ok(Math.abs(Date.parse(at) - Date.now()) < 60_000);
      assert.match((await hub('GET', path)).body, /You confirmed this appointment/);
      const otherJob = (await api.post('/api/v1/jobs', { contact_id: await contact() })).body.data.id;
      const theirs = (await api.post('/api/v1/events', { start_date: '2099-02-03', end_date: '2099-02-03', job_id: otherJob })).body.data.id;
      assert.equal((await hub('POST', `${path}/events/${theirs}/confirm`)).status, 404);
      assert.equal((await api.get(`/api/v1/events/${theirs}`)).body.data.customer_confirmed_at, null);
    });

    test('request form: creates a request for the contact (new_request); bad input and D23 required fields: 400 page, nothing created', async () => {
      const id = await contact();
      const path = await link(id);
      assert.match((await hub('GET', `${path}/request`)).body, /name="details"/);
      const res = await hub('POST', `${path}/request`, 'details=Leaky+tap&service_type=Plumbing&preferred_date=2099-06-01');
      assert.equal(res.status, 303);
      assert.match(String(res.headers.location), new RegExp(`^${path}/request\\?sent=\\d+$`));
      assert.match((await hub('GET', String(res.headers.location))).body, /was sent to/);
      const [request] = (await api.get(`/api/v1/requests?contact_id=${id}`)).body.data.filter((r: { contact_id: number }) => r.contact_id === id);
      assert.equal(request.details, 'Leaky tap');
      const full = (await api.get(`/api/v1/requests/${request.id}`)).body.data;
      assert.deepEqual(full.data, { service_type: 'Plumbing', preferred_date: '2099-06-01' });
      const fired = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'new_request' && e.data.id === request.id);
      assert.equal(fired.length, 1);
      assert.equal(fired[0].data.service_type, 'Plumbing');

      const count = async () => (await t.db.selectFrom('requests').select('id').where('contact_id', '=', id).execute()).length;
      for (const body of ['details=', 'details=x&preferred_date=tomorrow']) {
        const bad = await hub('POST', `${path}/request`, body);
        assert.equal(bad.status, 400);
        assert.match(bad.body, /role="alert"/);
      }
      const strict = await seedWorkspace(t.db);
      await addCustomField(t.db, strict.workspace.id, { module_type: 'request', key: 'gate_code', label: 'Gate code', type: 'text', options: null, required: true });
      const theirs = await contact(strict);
      const refused = await hub('POST', `${await link(theirs, strict)}/request`, { details: 'Fix it' });
      assert.equal(refused.status, 400);
      assert.match(refused.body, /needs details this form does not ask for/);
      assert.equal(await count(), 1);
      assert.equal((await t.db.selectFrom('requests').select('id').where('contact_id', '=', theirs).execute()).length, 0);
    });
  });
});
