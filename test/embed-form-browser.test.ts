// Issue 6.7: the embeddable script, in headless Chromium. The host page is served
// from another origin than the API, so the submission is a real CORS request
// (preflight included, the body being JSON).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
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

test('a pasted form submits to the API and shows the request number', { skip, timeout: 60_000 }, async () => {
  const { chromium } = await import('playwright-core');
  const ws = await seedWorkspace(t.db);
  const key = await keyFor(t.db, ws.workspace.id, 'embed_forms');
  const apiOrigin = await t.app.listen({ host: '127.0.0.1', port: 0 });

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
    assert.match((await tab.textContent('[data-fieldwork-status]')) ?? '', /Invalid request data.*phone/);

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
  } finally {
    await browser.close();
  }
});
