// E7, E8: the customer hub in headless Chromium, from the email to the job. The
// office sends a quote with POST /notifications; the worker delivers it to a real
// SMTP server on 127.0.0.1; the customer opens the link from that email on a
// 375 px wide screen and answers. Every hub page is also checked with axe-core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from './helpers.ts';
import { leaves, parseMime, type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.ts';
import { waitFor } from './webhook-receiver.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
const AXE = path.resolve(import.meta.dirname, '../node_modules/axe-core/axe.min.js');
const WIDTH = 375;

let t: TestApp;
let smtp: SmtpReceiver;
let worker: Worker;
let browser: Browser;
let api: Client;
let seq = 0;

before(async () => {
  if (skip) return;
  t = await buildTestApp({ HUB_RATE_LIMIT: '1000/1m' });
  const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  t.config.publicUrl = origin; // as main.ts does once the port is known: links point at this server
  smtp = await startSmtpReceiver();
  worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, smtpUrl: smtp.url }, pollMs: 20 });
  worker.start();
  const ws = await seedWorkspace(t.db, 'Greenleaf Gardens');
  api = client(t.app, ws.token);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
});
after(async () => {
  if (skip) return;
  await browser?.close();
  await worker?.stop();
  await smtp?.close();
  await t.close();
});

/** A contact with an email, a quote with line items sent to them; the hub link from the email the SMTP server received. */
async function sendQuote(): Promise<{ quoteId: number; contactId: number; link: string }> {
  const n = ++seq;
  const email = `pat${n}@customer.test`;
  const contactId = (await api.post('/api/v1/contacts', { first_name: 'Pat', last_name: `Customer ${n}`, email })).body.data.id;
  const quote = await api.post('/api/v1/quotes', {
    contact_id: contactId,
    name: 'Spring garden cleanup with hedge trimming and a long name that must wrap on a phone',
    line_items: [
      { name: 'Hedge trimming', description: 'Front and back hedges, about 40 metres in total, cuttings taken away', quantity: 2, unitPrice: 85.5 },
      { name: 'Lawn aeration', quantity: 1, unitPrice: 120 },
      { name: 'Mulch (optional)', quantity: 3, unitPrice: 15, optional: true },
    ],
    tax_rate: 8.25,
    expire_on: '2099-06-30',
  });
  assert.equal(quote.status, 201, JSON.stringify(quote.body));
  const quoteId = quote.body.data.id as number;
  assert.equal((await api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: quoteId })).status, 201);
  await waitFor(`the email to ${email}`, () => smtp.mails.some((m) => m.to.includes(email)));
  const mail = smtp.mails.find((m) => m.to.includes(email))!;
  const text = leaves(parseMime(mail.raw)).find((p) => p.contentType === 'text/plain')!.body;
  const link = new RegExp(`${t.config.publicUrl}/hub/[A-Za-z0-9_-]{43}/quotes/${quoteId}`).exec(text)?.[0];
  assert.ok(link, text);
  return { quoteId, contactId, link };
}

async function phonePage(opts: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 }, ...opts });
  return context.newPage();
}

async function noSideways(page: Page): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= WIDTH, `${page.url()}: scrollWidth ${width} > ${WIDTH}`);
}

/** The contact's jobs, through the API (GET /jobs), each with the quote it came from (its single GET). */
const jobsOf = async (contactId: number) => {
  const list = ((await api.get('/api/v1/jobs?limit=100')).body.data as { id: number; contact_id: number | null }[]).filter((j) => j.contact_id === contactId);
  return Promise.all(list.map(async (j) => (await api.get(`/api/v1/jobs/${j.id}`)).body.data as { id: number; quote_id: number | null }));
};

test('the customer approves a quote from the emailed link, on a phone; the job appears', { skip, timeout: 60_000 }, async () => {
  const { quoteId, contactId, link } = await sendQuote();
  const page = await phonePage();
  await page.goto(link);
  await noSideways(page);
  // The stylesheet loaded under the page's CSP (the body's margin is the hub's).
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).marginTop), '0px');
  assert.match((await page.textContent('main')) ?? '', /Hedge trimming[\s\S]*Lawn aeration[\s\S]*Optional/);
  await page.fill('#signature_name', 'Pat Customer');
  await page.fill('#approve_message', 'Please start on Monday.');
  await page.click('button:has-text("Approve quote")');
  await page.waitForSelector('text=You approved this quote');
  await noSideways(page);
  assert.equal(new URL(page.url()).pathname, new URL(link).pathname, '303 back to the quote page');
  const jobs = await jobsOf(contactId);
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0].quote_id, quoteId);
  const quote = (await api.get(`/api/v1/quotes/${quoteId}`)).body.data;
  assert.equal(quote.status, 'accepted');
  assert.equal(quote.approval.signature_name, 'Pat Customer');
  await page.context().close();
});

test('F127: a hub page logs no console error and fails no request (its favicon included); text arrives compressed', { skip, timeout: 60_000 }, async () => {
  const { link } = await sendQuote();
  const page = await phonePage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const failed: string[] = [];
  const encodings = new Map<string, string | undefined>();
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    encodings.set(new URL(r.url()).pathname, r.headers()['content-encoding']);
  });
  await page.goto(link, { waitUntil: 'networkidle' });
  // The favicon, as the browser asks for it (headless Chromium may not, so also asked here).
  const icon = await page.context().request.get(new URL('/favicon.ico', link).href);
  assert.equal(icon.status(), 200);
  assert.deepEqual(failed, []);
  assert.deepEqual(errors, []);
  assert.equal(encodings.get(new URL(link).pathname), 'br', 'the page');
  assert.equal(encodings.get('/hub/hub.css'), 'br', 'the stylesheet');
  await page.context().close();
});

test('the customer asks for changes, and another declines', { skip, timeout: 60_000 }, async () => {
  const changes = await sendQuote();
  const page = await phonePage();
  await page.goto(changes.link);
  await page.fill('#changes_message', 'Could you skip the aeration?');
  await page.click('button:has-text("Request changes")');
  await page.waitForSelector('text=You asked for changes');
  await noSideways(page);
  const changed = (await api.get(`/api/v1/quotes/${changes.quoteId}`)).body.data;
  assert.equal(changed.status, 'draft');
  assert.equal(changed.status_changes.at(-1).comment, 'Could you skip the aeration?');

  const decline = await sendQuote();
  await page.goto(decline.link);
  await page.fill('#decline_message', 'We found someone closer.');
  await page.click('button:has-text("Decline quote")');
  await page.waitForSelector('text=You declined this quote');
  await noSideways(page);
  assert.equal((await api.get(`/api/v1/quotes/${decline.quoteId}`)).body.data.status, 'declined');
  assert.equal((await jobsOf(changes.contactId)).length + (await jobsOf(decline.contactId)).length, 0);
  await page.context().close();
});

test('every hub page passes axe-core (no serious or critical violations) and fits 375 px', { skip, timeout: 90_000 }, async () => {
  const { quoteId, contactId, link } = await sendQuote();
  const home = link.replace(/\/quotes\/\d+$/, '');
  const invoice = (await api.post('/api/v1/invoices', { contact_id: contactId, name: 'Spring work', due_date: '2099-05-01', line_items: [{ name: 'Hedge trimming', quantity: 2, unitPrice: 85.5 }] })).body.data;
  await api.put(`/api/v1/invoices/${invoice.id}/status`, { status: 'sent' });
  await api.post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 50, method: 'card' });
  const job = (await api.post('/api/v1/jobs', { contact_id: contactId, name: 'Garden' })).body.data.id;
  await api.post('/api/v1/events', { start_date: '2099-04-02', end_date: '2099-04-02', start_time: '09:00', end_time: '11:00', job_id: job, name: 'Hedge visit' });

  // bypassCSP: only so axe's own script can be injected; the pages are the same.
  const page = await phonePage({ bypassCSP: true });
  const check = async (label: string, expectStatus: number, go: () => Promise<number | undefined>) => {
    const status = await go();
    assert.equal(status, expectStatus, label);
    await noSideways(page);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: { id: string; impact: string; help: string }[] }> } }).axe;
      return (await axe.run(document)).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help }));
    });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad, [], `${label}: ${JSON.stringify(bad)}`);
  };
  await check('home', 200, async () => (await page.goto(home))?.status());
  assert.match((await page.textContent('main')) ?? '', /Hedge visit/);
  await check('quote', 200, async () => (await page.goto(link))?.status());
  await check('invoice', 200, async () => (await page.goto(`${home}/invoices/${invoice.id}`))?.status());
  await check('request form', 200, async () => (await page.goto(`${home}/request`))?.status());
  await check('404', 404, async () => (await page.goto(`${t.config.publicUrl}/hub/${'A'.repeat(43)}`))?.status());
  // 409: the office declines while the customer has the page open.
  await page.goto(link);
  await api.put(`/api/v1/quotes/${quoteId}/status`, { status: 'declined' });
  await page.fill('#signature_name', 'Pat Customer');
  await check('409', 409, async () => {
    const [response] = await Promise.all([page.waitForNavigation(), page.click('button:has-text("Approve quote")')]);
    return response?.status();
  });
  assert.match((await page.textContent('main')) ?? '', /no longer waiting for an answer/);
  assert.equal((await api.get(`/api/v1/quotes/${quoteId}`)).body.data.status, 'declined');
  await page.context().close();
});
