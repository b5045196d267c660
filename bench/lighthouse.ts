// Lighthouse (mobile preset, Debian chromium) on Fieldwork Office's sign-in page,
// Home, a client, a quote and a member's My day (its screen emulated 375 px wide),
// served from the production build by the real server on a fresh SQLite database
// with a little seeded data; and the first load's gzipped JavaScript. Each page is
// measured RUNS times (default 3) and the run with the median performance score is
// printed: the machine is shared and one run swings by several points. Each run is its
// own process (bench/lighthouse-run.ts), apart from the server it measures, as in production.
// `RUNS=5 npx tsx bench/lighthouse.ts` prints the figures of bench/RESULTS.md; PAGES=client
// measures one page.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import { spawn } from 'node:child_process';
import type { Result } from 'lighthouse';
import { startHarness } from '../packages/app/test/harness.ts';

const RUNS = Number(process.env.RUNS ?? 3);
// PAGES=client,quote measures only the pages whose names contain one of these words.
const PAGES = process.env.PAGES?.toLowerCase().split(',').filter(Boolean);

/** One run in its own process (bench/lighthouse-run.ts): the server here keeps this event loop to itself. */
function runLighthouse(url: string, port: number, flags: Record<string, unknown>): Promise<Result> {
  const child = spawn(process.execPath, [...process.execArgv, path.join(import.meta.dirname, 'lighthouse-run.ts'), JSON.stringify({ url, port, flags })], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`lighthouse-run exited with ${code}`)))));
}
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist-app');

// The JavaScript the HTML names (entry + modulepreloads): what every first load fetches before its page's chunk.
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const scripts = [...html.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
const gz = (f: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length;
const entryGzip = scripts.reduce((s, f) => s + gz(f), 0);

const h = await startHarness();
const ws = await h.workspace('Greenleaf Gardens');
const contact = (await h.call(ws.token, 'POST', '/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes' })).data;
await h.call(ws.token, 'POST', '/api/v1/requests', { name: 'Fix fence', contact_id: contact.id });
const inv = (await h.call(ws.token, 'POST', '/api/v1/invoices', { name: 'Spring', status: 'sent', line_items: [{ name: 'Work', unitPrice: 500, quantity: 1 }] })).data;
await h.call(ws.token, 'POST', `/api/v1/invoices/${inv.id}/payments`, { amount: 200, method: 'card', paid_on: new Date().toISOString().slice(0, 10) });
const quote = (await h.call(ws.token, 'POST', '/api/v1/quotes', { name: 'Garden makeover', contact_id: contact.id, line_items: [{ name: 'Design', unitPrice: 300, quantity: 1 }, { name: 'Planting', unitPrice: 45, quantity: 8 }] })).data;
const { context, page } = await h.page();
await h.signIn(page, ws.owner);
const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
await context.close();
// My day: a member with three visits today, one on a job with a client, an address and line items.
const member = await h.person(ws.id, 'member');
const property = (await h.call(ws.token, 'POST', `/api/v1/contacts/${contact.id}/properties`, { address: { street: '12 Elm Street', city: 'Springfield', state: 'IL', postal_code: '62701' } })).data;
const job = (await h.call(ws.token, 'POST', '/api/v1/jobs', { name: 'Hedge trimming', contact_id: contact.id, property_id: property.id, line_items: [{ name: 'Trim', unitPrice: 40, quantity: 3 }] })).data;
const today = new Date().toISOString().slice(0, 10); // the workspace has no timezone: UTC
for (const [name, start, jobId] of [['Hedge trimming', '09:00', job.id], ['Lawn mowing', '11:00', null], ['Gutter check', '14:00', null]] as const) {
  await h.call(ws.token, 'POST', '/api/v1/events', { type: 'appointment', name, start_date: today, end_date: today, start_time: start, assignee_ids: [member.userId], job_id: jobId, description: 'Gate code 1234' });
}
const memberPage = await h.page(375);
await h.signIn(memberPage.page, member);
const memberCookie = (await memberPage.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
await memberPage.context.close();
const phone375 = { formFactor: 'mobile' as const, screenEmulation: { mobile: true, width: 375, height: 667, deviceScaleFactor: 2, disabled: false } };

const chrome = await chromeLauncher.launch({ chromePath: '/usr/bin/chromium', chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const rows: string[] = [];
try {
  for (const [name, url, headers, screen] of [
    ['Sign-in', `${h.origin}/app/sign-in`, {}, {}],
    ['Home', `${h.origin}/app`, { Cookie: cookie }, {}],
    ['A client', `${h.origin}/app/clients/${contact.id}`, { Cookie: cookie }, {}],
    ['A quote', `${h.origin}/app/quotes/${quote.id}`, { Cookie: cookie }, {}],
    ['My day (member, 375 px)', `${h.origin}/app/my-day`, { Cookie: memberCookie }, phone375],
  ] as const) {
    if (PAGES && !PAGES.some((p) => name.toLowerCase().includes(p))) continue;
    const runs: Result[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await runLighthouse(url, chrome.port, { extraHeaders: headers, onlyCategories: ['performance', 'accessibility', 'best-practices'], ...screen }));
    }
    const perf = (r: (typeof runs)[number]) => r.categories.performance?.score ?? 0;
    const sorted = [...runs].sort((a, b) => perf(a) - perf(b));
    const lhr = sorted[Math.floor(RUNS / 2)];
    // LH_SAVE=/tmp/lh keeps each median report (/tmp/lh-home.json, ...) to read its audits.
    if (process.env.LH_SAVE) fs.writeFileSync(`${process.env.LH_SAVE}-${name.split(' (')[0].toLowerCase().replaceAll(' ', '-')}.json`, JSON.stringify(lhr));
    const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    const requests = (lhr.audits['network-requests']?.details as { items?: { resourceType?: string; transferSize?: number }[] } | undefined)?.items ?? [];
    const jsKb = requests.filter((r) => r.resourceType === 'Script').reduce((s, r) => s + (r.transferSize ?? 0), 0) / 1024;
    const failed = ['accessibility', 'best-practices']
      .flatMap((c) => lhr.categories[c].auditRefs.map((a) => a.id))
      .filter((id) => lhr.audits[id].score !== null && lhr.audits[id].score! < 1 && lhr.audits[id].scoreDisplayMode === 'binary');
    rows.push(
      `| ${name} | ${score('performance')} (${sorted.map((r) => Math.round(perf(r) * 100)).join(', ')}) | ${score('accessibility')} | ${score('best-practices')} | ${lhr.audits['first-contentful-paint'].displayValue} | ${lhr.audits['largest-contentful-paint'].displayValue} | ${lhr.audits['total-blocking-time'].displayValue} | ${jsKb.toFixed(0)} KB |${failed.length ? ` failed: ${failed.join(', ')}` : ''}`,
    );
  }
} finally {
  await chrome.kill();
  await h.close();
}
console.log(`First load JavaScript (entry + preloads, gzip -9): ${(entryGzip / 1024).toFixed(1)} KB (${scripts.join(', ')})`);
console.log(`${RUNS} runs per page; the median run's figures (performance of every run in brackets)`);
console.log('| page | performance | accessibility | best practices | FCP | LCP | TBT | JS transferred (brotli) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
