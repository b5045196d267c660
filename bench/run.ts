// `npm run bench`: Fieldwork's routes and a bare Fastify route loaded in the same
// run (wrk when installed, autocannon otherwise: bench/load.ts); results as ratios
// to that ceiling, since the 2 cores are shared with the load generator and
// absolute numbers mean little. Also reports the statements each request ran.
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL; BENCH_SECONDS sets each
// run's length, BENCH_CONNECTIONS the connections (32), BENCH_CONTACTS the contacts
// seeded in the workspace (20,000), BENCH_ONLY=<text> only the scenarios naming it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { type Load, load, loadTool } from './load.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const root = path.resolve(import.meta.dirname, '..');
// The server runs as `npm start` runs it, from JavaScript built into dist/
// (BENCH_RUNNER=tsx runs the TypeScript through tsx instead, for comparison).
const runner = process.env.BENCH_RUNNER === 'tsx' ? 'tsx' : 'dist';
if (runner === 'dist') execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
const start = (name: string) => {
  const args = runner === 'tsx' ? ['--import', 'tsx', `bench/${name}.ts`] : [`dist/bench/${name}.js`];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const line = new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  return { child, line };
};
const bare = start('bare');
const server = start('server');
const info = {
  ...(JSON.parse(await server.line) as { side: string; app: string; token: string; formKey: string; contactId: number; quoteIds: number[]; sentQuoteId: number; payableInvoiceId: number; hubQuotePath: string; pdfInvoiceId: number; dialect: string }),
  bare: await bare.line,
};
// The app's resident memory, sampled while it is under load.
let peakRss = 0;
const rssTimer = setInterval(() => {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1] ?? 0);
  peakRss = Math.max(peakRss, kb);
}, 100);
const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };

interface Scenario extends Omit<Load, 'url'> {
  name: string;
  url: string;
}
const tenItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, unitPrice: 10 + i, quantity: 1 + (i % 3), taxable: i % 2 === 0 }));
const all: Scenario[] = [
  { name: 'bare Fastify route (ceiling)', url: `${info.bare}/bare` },
  { name: 'GET /api/v1/contacts/:id', url: `${info.app}/api/v1/contacts/${info.contactId}` },
  { name: 'GET /api/v1/contacts (25 per page)', url: `${info.app}/api/v1/contacts` },
  // One contact's email (c4321@example.test): a selective search.
  { name: 'GET /api/v1/contacts?search=c4321@', url: `${info.app}/api/v1/contacts?search=c4321%40` },
  // E12: a sync page, the ~600 contacts updated in the last 10 minutes of the seed (before the POSTs below add more).
  {
    name: 'GET /api/v1/contacts?updated_since=<10 min ago>&sort_by=updated_at (sync page)',
    url: `${info.app}/api/v1/contacts?updated_since=${encodeURIComponent(new Date(Date.now() - 600_000).toISOString())}&sort_by=updated_at&sort_direction=asc`,
  },
  { name: 'POST /api/v1/contacts', url: `${info.app}/api/v1/contacts`, method: 'POST', body: JSON.stringify({ first_name: 'Load', last_name: 'Test', email: 'load@example.test' }) },
  // E11's cost: the same create with a fresh Idempotency-Key on every request (claimed, then stored with the effect).
  {
    name: 'POST /api/v1/contacts with a fresh Idempotency-Key',
    url: `${info.app}/api/v1/contacts`,
    method: 'POST',
    uniqueHeader: 'Idempotency-Key',
    body: JSON.stringify({ first_name: 'Load', last_name: 'Test', email: 'load@example.test' }),
  },
  { name: 'POST /api/v1/quotes (10 line items)', url: `${info.app}/api/v1/quotes`, method: 'POST', body: JSON.stringify({ name: 'Bench', contact_id: info.contactId, line_items: tenItems, discount: 5, tax_rate: 8 }) },
  {
    name: 'PUT /api/v1/quotes/:id/status accepted (creates the job)',
    url: info.app,
    method: 'PUT',
    body: JSON.stringify({ status: 'accepted' }),
    paths: info.quoteIds.map((id) => `/api/v1/quotes/${id}/status`),
  },
  {
    name: 'POST /api/forms/embed-request (website form)',
    url: `${info.app}/api/forms/embed-request`,
    method: 'POST',
    body: JSON.stringify({ apiKey: info.formKey, formData: { firstName: 'Web', lastName: 'Visitor', email: 'web@example.test', phone: '+15550100', description: 'Leaking tap in the kitchen' } }),
  },
  {
    name: 'POST /api/v1/invoices/:id/payments (locks the invoice, moves the balance)',
    url: `${info.app}/api/v1/invoices/${info.payableInvoiceId}/payments`,
    method: 'POST',
    body: JSON.stringify({ amount: 0.01, method: 'card' }),
  },
  { name: 'GET /api/v1/quotes?status=awaiting_response', url: `${info.app}/api/v1/quotes?status=awaiting_response` },
  { name: 'GET /hub/<token>/quotes/:id (customer hub page, 10 line items)', url: `${info.app}${info.hubQuotePath}` },
  // E9: read, lay out and compress a 50-line invoice (3 pages) per request.
  { name: 'GET /api/v1/invoices/:id/pdf (50 line items)', url: `${info.app}/api/v1/invoices/${info.pdfInvoiceId}/pdf` },
  {
    name: 'POST /api/v1/notifications quote_to_customer (queues the email)',
    url: `${info.app}/api/v1/notifications`,
    method: 'POST',
    body: JSON.stringify({ type: 'quote_to_customer', module_id: info.sentQuoteId }),
  },
];
// BENCH_ONLY=contacts runs the ceiling and the scenarios whose name contains that text.
const only = process.env.BENCH_ONLY;
const scenarios = only ? all.filter((s, i) => i === 0 || s.name.includes(only)) : all;

const statements = async () => ((await (await fetch(`${info.side}/statements`)).json()) as { statements: number }).statements;
const results: { name: string; rps: number; p99: number; bad: number; perRequest: number | null }[] = [];
for (const s of scenarios) {
  const before = await statements();
  const r = await load({ headers, connections, seconds, ...s });
  const ran = (await statements()) - before;
  const requests = r.rps * seconds;
  const perRequest = s.url.startsWith(info.bare) ? null : Math.round((ran / Math.max(requests, 1)) * 10) / 10;
  results.push({ name: s.name, rps: r.rps, p99: r.p99, bad: r.bad, perRequest });
  console.error(`${s.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, statements/request ${perRequest ?? '-'}, bad ${r.bad}`);
}
clearInterval(rssTimer);
const peakRssMb = Math.round(peakRss / 1024);
server.child.kill('SIGTERM');
bare.child.kill('SIGTERM');

const ceiling = results[0].rps;
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ${info.dialect}, ${loadTool}, ${runner}, ${seconds}s per scenario, ${connections} connections`,
  '',
  '| scenario | req/s | ratio to ceiling | p99 ms | statements/request | non-2xx |',
  '|---|---:|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${(r.rps / ceiling).toFixed(2)} | ${r.p99} | ${r.perRequest ?? '-'} | ${r.bad} |`),
  '',
  `Peak RSS of the app's process under load: ${peakRssMb} MB.`,
  '',
].join('\n');
console.log(table);
// BENCH_JSON=<file>: the results for a script that compares runs (bench/list-scale.ts).
if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ dialect: info.dialect, ceiling, results, peakRssMb }));
if (process.env.BENCH_APPEND !== '0') fs.appendFileSync(path.join(root, 'bench', 'RESULTS.md'), `\n${table}`);
process.exit(results.some((r) => r.bad > 0) ? 1 : 0);
