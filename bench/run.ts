// `npm run bench`: autocannon against Fieldwork's routes and a bare Fastify route
// in the same run; results as ratios to that ceiling (the machine's 2 cores are
// shared with the load generator, so absolute numbers mean little).
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL; BENCH_SECONDS sets each run's length.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const root = path.resolve(import.meta.dirname, '..');
const server = spawn(process.execPath, ['--import', 'tsx', 'bench/server.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
const first = await new Promise<string>((resolve) => readline.createInterface({ input: server.stdout! }).once('line', resolve));
const info = JSON.parse(first) as { bare: string; app: string; token: string; formKey: string; contactId: number; quoteIds: number[]; sentQuoteId: number; dialect: string };
const auth = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };

interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  body?: string;
  /** Each request takes the next of these paths (one-shot work such as accepting a quote). */
  paths?: string[];
}
const tenItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, unitPrice: 10 + i, quantity: 1 + (i % 3), taxable: i % 2 === 0 }));
const scenarios: Scenario[] = [
  { name: 'bare Fastify route (ceiling)', url: `${info.bare}/bare` },
  { name: 'GET /api/v1/contacts/:id', url: `${info.app}/api/v1/contacts/${info.contactId}` },
  { name: 'GET /api/v1/contacts (25 per page)', url: `${info.app}/api/v1/contacts` },
  { name: 'GET /api/v1/contacts?type=customer&search=first1', url: `${info.app}/api/v1/contacts?type=customer&search=first1` },
  { name: 'POST /api/v1/contacts', url: `${info.app}/api/v1/contacts`, method: 'POST', body: JSON.stringify({ first_name: 'Load', last_name: 'Test', email: 'load@example.test' }) },
  { name: 'POST /api/v1/quotes (10 line items)', url: `${info.app}/api/v1/quotes`, method: 'POST', body: JSON.stringify({ name: 'Bench', line_items: tenItems, discount: 5, tax_rate: 8 }) },
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
  { name: 'GET /api/v1/quotes?status=awaiting_response', url: `${info.app}/api/v1/quotes?status=awaiting_response` },
  {
    name: 'POST /api/v1/notifications quote_to_customer (queues the email)',
    url: `${info.app}/api/v1/notifications`,
    method: 'POST',
    body: JSON.stringify({ type: 'quote_to_customer', module_id: info.sentQuoteId }),
  },
  ...(process.env.BENCH_EXTRA ? (JSON.parse(process.env.BENCH_EXTRA) as Scenario[]) : []),
];

const results: { name: string; rps: number; p99: number; errors: number }[] = [];
for (const s of scenarios) {
  let next = 0;
  const r = await autocannon({
    url: s.url,
    method: s.method ?? 'GET',
    body: s.body,
    headers: auth,
    connections: 10,
    duration: seconds,
    ...(s.paths && {
      amount: s.paths.length, // never accept a quote twice: each request is new work
      requests: [{ method: s.method, body: s.body, setupRequest: (req: object) => ({ ...req, path: s.paths![next++ % s.paths!.length] }) }],
    }),
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  results.push({ name: s.name, rps: r.requests.average, p99: r.latency.p99, errors: bad });
  console.error(`${s.name}: ${r.requests.average} req/s, p99 ${r.latency.p99} ms, non-2xx/errors ${bad}`);
}
server.kill('SIGTERM');

const ceiling = results[0].rps;
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ${info.dialect}, ${seconds}s per scenario, 10 connections`,
  '',
  '| scenario | req/s | ratio to ceiling | p99 ms | non-2xx |',
  '|---|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${(r.rps / ceiling).toFixed(2)} | ${r.p99} | ${r.errors} |`),
  '',
].join('\n');
console.log(table);
if (process.env.BENCH_APPEND !== '0') fs.appendFileSync(path.join(root, 'bench', 'RESULTS.md'), `\n${table}`);
process.exit(results.some((r) => r.errors > 0) ? 1 : 0);
