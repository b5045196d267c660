import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';
import { pdfText } from './pdf-text.ts';

// Issue 22 item 2 (A64): the business's address, phone, email, website and tax
// number, set with PUT /api/v1/workspace, on its PDFs, hub pages and customer emails.

const DETAILS = {
  address: '12 Harbour Road\nPortsmouth PO1 2AB',
  phone: '+44 23 9200 0000',
  email: 'office@harbour-roofing.test',
  website: 'https://harbour-roofing.test',
  tax_number: 'GB 123 4567 89',
};
const LINES = ['12 Harbour Road', 'Portsmouth PO1 2AB', DETAILS.phone, DETAILS.email, DETAILS.website, `Tax no. ${DETAILS.tax_number}`];

describe('the business on its documents', () => {
  let t: TestApp;
  let api: Client;
  let token: string;
  let contactId: number;
  let quoteId: number;
  let invoiceId: number;
  before(async () => {
    t = await buildTestApp();
    const ws = await seedWorkspace(t.db, 'Harbour Roofing');
    token = ws.token;
    api = client(t.app, token);
    contactId = (await api.post('/api/v1/contacts', { first_name: 'Cara', last_name: 'Customer', email: 'cara@example.test' })).body.data.id;
    const items = [{ name: 'Ridge tiles', unitPrice: 120, quantity: 2 }];
    quoteId = (await api.post('/api/v1/quotes', { contact_id: contactId, name: 'Ridge', line_items: items })).body.data.id;
    invoiceId = (await api.post('/api/v1/invoices', { contact_id: contactId, name: 'Ridge', line_items: items })).body.data.id;
  });
  after(() => t.close());

  const pdf = async (url: string) => {
    const res = await t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 200);
    return (await pdfText(res.rawPayload))[0].text;
  };

  test('PDFs show only the name until the details are set, then every line of them', async () => {
    const bareText = await pdf(`/api/v1/quotes/${quoteId}/pdf`);
    assert.match(bareText, /^Harbour Roofing Quote/);
    for (const line of LINES) assert.ok(!bareText.includes(line), line);

    assert.equal((await api.put('/api/v1/workspace', DETAILS)).status, 200);
    for (const url of [`/api/v1/quotes/${quoteId}/pdf`, `/api/v1/invoices/${invoiceId}/pdf`]) {
      const text = await pdf(url);
      assert.ok(text.startsWith(`Harbour Roofing ${LINES.join(' ')}`), text.slice(0, 300));
    }
  });

  test('hub pages show the details under the name; an expired link names the business and how to reach it', async () => {
    await api.put('/api/v1/workspace', DETAILS);
    const url = new URL((await api.post(`/api/v1/contacts/${contactId}/hub-link`)).body.data.url).pathname;
    const home = await t.app.inject({ url });
    assert.equal(home.statusCode, 200);
    const contact = /<p class="contact">(.*?)<\/p>/s.exec(home.body)?.[1];
    assert.equal(contact, '12 Harbour Road<br>Portsmouth PO1 2AB<br>+44 23 9200 0000<br>office@harbour-roofing.test<br>https://harbour-roofing.test<br>Tax no. GB 123 4567 89');
    await t.db.updateTable('hub_links').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute();
    const expired = await t.app.inject({ url });
    assert.equal(expired.statusCode, 404);
    assert.match(expired.body, /Please ask Harbour Roofing for a new link\./);
    assert.match(expired.body, /<p class="contact">12 Harbour Road<br>/);
  });

  test('customer emails end with the details; a workspace without them shows none of those lines', async () => {
    await api.put('/api/v1/workspace', DETAILS);
    assert.equal((await api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: quoteId })).status, 201);
    const sent = await t.db.selectFrom('messages').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.ok(sent.body_text.endsWith(`Thank you,\nHarbour Roofing\n${LINES.join('\n')}`), sent.body_text);
    assert.match(sent.body_html ?? '', /\+44 23 9200 0000/);
    await api.put('/api/v1/workspace', { address: null, phone: null, email: null, website: null, tax_number: null });
    await api.post('/api/v1/notifications', { type: 'invoice_to_customer', module_id: invoiceId });
    const plain = await t.db.selectFrom('messages').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.ok(plain.body_text.endsWith('Thank you,\nHarbour Roofing'), plain.body_text);
  });
});
