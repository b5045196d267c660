// Issue 6.7: the embeddable script, in headless Chromium. The host page is served
// from another origin than the API, so the submission is a real CORS request
// (preflight included, the body being JSON).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { addCustomField } from '../src/modules/custom-fields/custom-fields.service.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install -y chromium)`;

let t: TestApp;
let host: http.Server;
before(async () => {
  if (skip) return;
  t = await buildTestApp({ FORM_RATE_LIMIT: '100/1h' });
});
after(async () => {
  if (skip) return;
  await new Promise((r) => (host ? host.close(r) : r(null)));
  await t.close();
});

/** What a homeowner reads: sentences, never a field path, a pattern or the API's own wording. */
function assertPlain(text: string) {
  assert.doesNotMatch(text, /formData|customFields|\bpath\b|pattern|format|must (match|have|be)|\^|Invalid request data|[{}[\]]/, text);
}

const launch = async () => {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
};

/** A host page on another origin with the pasted snippet; `host` is closed in after(). */
async function hostPage(apiOrigin: string, key: string) {
  const page = `<!doctype html><html><body><h1>Bob's Plumbing</h1>
<div id="request-form"></div>
<script src="${apiOrigin}/embed/form.js" data-api-key="${key}" data-target="#request-form"></script>
</body></html>`;
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hosts.push(server);
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}
const hosts: http.Server[] = [];
/** The API on a real port, started by the first test that needs it. */
const listening = async () =>
  t.app.server.listening ? `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` : t.app.listen({ host: '127.0.0.1', port: 0 });
after(async () => {
  for (const h of hosts) await new Promise((r) => h.close(r));
});

test('the form draws the request custom fields (D23), submits them, and speaks plainly about mistakes', { skip, timeout: 60_000 }, async () => {
  const ws = await seedWorkspace(t.db);
  await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'service_type', label: 'Service type', type: 'select', options: ['Repair', 'Installation'], required: true });
  await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'gate_code', label: 'Gate code', type: 'text', options: null, required: true });
  await addCustomField(t.db, ws.workspace.id, { module_type: 'request', key: 'pets', label: 'Pets at home', type: 'boolean', options: null, required: false });
  const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
  const apiOrigin = await listening();
  const origin = await hostPage(apiOrigin, key);
  const browser = await launch();
  try {
    const tab = await browser.newPage();
    await tab.goto(origin);
    // The definitions arrive from the API: a select with its options, a text input, a checkbox; labels marked required.
    await tab.waitForSelector('select[data-field=cf-service_type]');
    assert.deepEqual(await tab.$$eval('select[data-field=cf-service_type] option', (os) => os.map((o) => o.textContent)), ['Choose...', 'Repair', 'Installation']);
    assert.equal(await tab.textContent('label[for=fw-cf-service_type]'), 'Service type *');
    assert.equal(await tab.textContent('label[for=fw-cf-gate_code]'), 'Gate code *');
    assert.equal(await tab.getAttribute('[data-field=cf-pets]', 'type'), 'checkbox');
    assert.equal(await tab.textContent('label[for=fw-cf-pets]'), 'Pets at home');

    const status = async () => {
      await tab.waitForSelector('[data-fieldwork-status][data-state=error], [data-fieldwork-status][data-state=success]');
      return (await tab.textContent('[data-fieldwork-status]')) ?? '';
    };
    const submit = async () => {
      await tab.evaluate(() => document.querySelector('[data-fieldwork-status]')?.removeAttribute('data-state'));
      await tab.click('button[type=submit]');
      return status();
    };
    // A bad email: a sentence, not the validator's words.
    await tab.fill('[data-field=firstName]', 'Jane');
    await tab.fill('[data-field=lastName]', 'Doe');
    await tab.fill('[data-field=email]', 'jane@');
    await tab.fill('[data-field=phone]', '+1 555 123 4567');
    await tab.fill('[data-field=description]', 'The gate motor hums.');
    const badEmail = await submit();
    assert.match(badEmail, /Please enter a valid email address, like name@example\.com\./);
    assertPlain(badEmail);
    // The required custom fields left empty: one sentence each, by their labels.
    await tab.fill('[data-field=email]', 'jane@example.test');
    const missing = await submit();
    assert.match(missing, /Please choose an option for "Service type"\./);
    assert.match(missing, /Please fill in "Gate code"\./);
    assertPlain(missing);
    assert.equal(await tab.getAttribute('[data-field=cf-gate_code]', 'aria-invalid'), 'true');
    assert.equal(await t.db.selectFrom('requests').select('id').where('workspace_id', '=', ws.workspace.id).executeTakeFirst(), undefined, 'nothing created');
    // Filled: the request carries them as its custom_fields.
    await tab.selectOption('[data-field=cf-service_type]', 'Installation');
    await tab.fill('[data-field=cf-gate_code]', '#4521');
    await tab.check('[data-field=cf-pets]');
    const done = await submit();
    assert.match(done, /Thank you! Your request number is 1\./);
    const [request] = (await client(t.app, ws.token).get('/api/v1/requests')).body.data;
    const full = (await client(t.app, ws.token).get(`/api/v1/requests/${request.id}`)).body.data;
    assert.deepEqual(full.custom_fields, { service_type: 'Installation', gate_code: '#4521', pets: true });
  } finally {
    await browser.close();
  }
});

test('a pasted form submits to the API and shows the request number', { skip, timeout: 60_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const ws = await seedWorkspace(t.db);
  const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
  const apiOrigin = await listening();

  const page = `<!doctype html><html><body><h1>Bob's Plumbing</h1>
<div id="request-form"></div>
<script src="${apiOrigin}/embed/form.js" data-api-key="${key}" data-target="#request-form"></script>
</body></html>`;
  host = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  const hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`; // another host and port: another origin
  assert.notEqual(new URL(hostOrigin).origin, new URL(apiOrigin).origin);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const tab = await browser.newPage();
    await tab.goto(hostOrigin);
    // A validation error is shown, with the field it names.
    await tab.fill('[data-field=firstName]', 'Jane');
    await tab.fill('[data-field=lastName]', 'Doe');
    await tab.fill('[data-field=email]', 'jane@example.test');
    await tab.fill('[data-field=phone]', 'call me');
    await tab.fill('[data-field=description]', 'The sink is blocked.');
    await tab.click('button[type=submit]');
    await tab.waitForSelector('[data-fieldwork-status][data-state=error]');
    const phoneError = (await tab.textContent('[data-fieldwork-status]')) ?? '';
    assert.match(phoneError, /Please check the form:.*Please enter a valid phone number, like \+1 555 123 4567\./);
    assertPlain(phoneError);
    assert.equal(await tab.getAttribute('[data-field=phone]', 'aria-invalid'), 'true');

    await tab.fill('[data-field=phone]', '+1 555 123 4567');
    await tab.fill('[data-field=street]', '9 Pipe Lane');
    await tab.click('button[type=submit]');
    await tab.waitForSelector('[data-fieldwork-status][data-state=success]');
    const text = (await tab.textContent('[data-fieldwork-status]')) ?? '';
    const number = /request number is (\d+)/.exec(text)?.[1];
    assert.equal(number, '1', text);

    const requests = (await client(t.app, ws.token).get('/api/v1/requests')).body.data;
    assert.equal(requests.length, 1);
    assert.equal(requests[0].number, 1);
    assert.equal(requests[0].details, 'The sink is blocked.');
    assert.ok(requests[0].property_id);
    const contact = (await client(t.app, ws.token).get(`/api/v1/contacts/${requests[0].contact_id}`)).body.data;
    assert.equal(contact.email, 'jane@example.test');

    // E11: one Idempotency-Key per submission. A double click sends the form once...
    const fill = async (description: string) => {
      await tab.fill('[data-field=firstName]', 'Jane');
      await tab.fill('[data-field=lastName]', 'Doe');
      await tab.fill('[data-field=email]', 'jane@example.test');
      await tab.fill('[data-field=phone]', '+1 555 123 4567');
      await tab.fill('[data-field=description]', description);
    };
    const status = (text: string) =>
      tab.waitForFunction((t) => document.querySelector('[data-fieldwork-status]')?.textContent?.includes(t), text, { timeout: 10_000 });
    await fill('The tap drips.');
    await tab.dblclick('button[type=submit]');
    await status('request number is 2');
    // ...and a resubmit after a lost answer (the server made the request, the page never
    // heard back) sends the same key: the server answers the first answer, once.
    let posts = 0;
    await tab.route('**/api/forms/embed-request', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      if (++posts === 1) {
        await route.fetch(); // it reaches the server...
        return route.abort('connectionreset'); // ...but the answer is lost
      }
      return route.continue();
    });
    await fill('The boiler knocks.');
    await tab.click('button[type=submit]');
    await status('Could not reach the server');
    await tab.click('button[type=submit]');
    await status('request number is 3');
    assert.equal(posts, 2);
    assert.equal((await client(t.app, ws.token).get('/api/v1/requests')).body.data.length, 3);
    const keys = await t.db.selectFrom('idempotency_keys').select(['idem_key', 'state']).where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(keys.length, 3); // one per submission: the first, the double click, the resubmitted one
    for (const k of keys) assert.match(k.idem_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  } finally {
    await browser.close();
  }
});
