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
