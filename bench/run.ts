// `npm run bench`: each of Fieldwork's scenarios and its floor (bench/floor.ts: the
// same work with nothing but the work, over the same database) loaded one after the
// other in the same run (wrk when installed, autocannon otherwise: bench/load.ts);
// results as shares of the floor, since the 2 cores are shared with the load
// generator and absolute numbers mean little. A bare Fastify route is measured too. Also reports the statements each request ran.
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL; BENCH_SECONDS sets each
// run's length, BENCH_CONNECTIONS the connections (32), BENCH_CONTACTS the contacts
// seeded in the workspace (20,000), BENCH_ONLY=<text> only the scenarios naming it,
// BENCH_SEARCH the search scenario's term (Last42); BENCH_QUOTES and BENCH_DRAFTS the
// quotes seeded (bench/fixture.ts).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { type Load, type LoadResult, load, loadTool } from './load.ts';
import { startFlags } from './start-flags.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
// A scenario and its floor alternate BENCH_ROUNDS times (app, floor, app, floor, ...): on a
// shared machine the load drifts within seconds, and alternating spreads the drift over both.
// Each round's app run and the floor's run right after it make one ratio; the share is the
// median of the rounds' ratios, so one disturbed window does not decide it (a mean of
// throughputs moved shares by 0.1 to 0.3 between runs of the same code on this machine).
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const search = process.env.BENCH_SEARCH ?? 'Last42';
const root = path.resolve(import.meta.dirname, '..');
// The server runs as `npm start` runs it, from JavaScript built into dist/
// (BENCH_RUNNER=tsx runs the TypeScript through tsx instead, for comparison).
const runner = process.env.BENCH_RUNNER === 'tsx' ? 'tsx' : 'dist';
if (runner === 'dist') execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
const start = (name: string, env: Record<string, string> = {}, flags: string[] = []) => {
  const args = [...flags, ...(runner === 'tsx' ? ['--import', 'tsx', `bench/${name}.ts`] : [`dist/bench/${name}.js`])];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const line = new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  return { child, line };
};
const bare = start('bare');
// The app as `npm start` runs it (its V8 flags); it seeds nothing itself (bench/fixture.ts does).
const server = start('server', {}, startFlags());
interface Info {
  url: string;
  side: string;
  app: string;
  token: string;
  formKey: string;
  contactId: number;
  quoteId: number;
  quoteIds: number[];
  sentQuoteId: number;
  payableInvoiceId: number;
  floorPayableInvoiceId: number;
  hubQuotePath: string;
  pdfInvoiceId: number;
  calendarWeek: { start: string; end: string };
  dialect: string;
}
const info = { ...(JSON.parse(await server.line) as Info), bare: await bare.line };
// The floor (bench/floor.ts) over the same database, started once bench/fixture.ts has seeded it.
// The same V8 flags as the app: the two differ by the work they do, not by their heap settings.
const floorProcess = start('floor', { FLOOR_DATABASE_URL: info.url }, startFlags());
const floor = await floorProcess.line;
// The app's resident memory, sampled while it is under load: the peak of the whole run and
// of each scenario (where it climbs).
let peakRss = 0;
let scenarioPeakRss = 0;
const rssTimer = setInterval(() => {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1] ?? 0);
  peakRss = Math.max(peakRss, kb);
  scenarioPeakRss = Math.max(scenarioPeakRss, kb);
}, 100);
const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };

/**
 * A scenario: the app's request and, when `floor` is set, the same request to the floor
 * (bench/floor.ts), loaded one after the other. `kind` picks the target:
 * reads >= 0.85 of the floor, writes >= 0.6, p99 within 2x of the floor's.
 */
interface Scenario extends Omit<Load, 'url'> {
  name: string;
  path: string;
  kind: 'read' | 'write';
  floor?: boolean;
  /** One-shot paths of the floor's run (the app's are `paths`). */
  floorPaths?: string[];
  /** The floor's path when it differs (a payment: each side pays its own invoice). */
  floorPath?: string;
  /** Run only when the app answers it with 2xx (a route another change adds). */
  optional?: boolean;
}
const tenItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, unitPrice: 10 + i, quantity: 1 + (i % 3), taxable: i % 2 === 0 }));
// The drafts to accept, half for the app and half for the floor; the last of each half is
// spent by the check below that both answer alike.
const half = Math.floor(info.quoteIds.length / 2);
const acceptPaths = (ids: number[]) => ids.map((id) => `/api/v1/quotes/${id}/status`);
const appAccepts = acceptPaths(info.quoteIds.slice(0, half));
const floorAccepts = acceptPaths(info.quoteIds.slice(half));
const contactBody = JSON.stringify({ first_name: 'Load', last_name: 'Test', email: 'load@example.test' });
// When the load starts: the fixture has seeded everything by then.
const benchStart = Date.now();
const week = `start_date=${info.calendarWeek.start}&end_date=${info.calendarWeek.end}&per_page=100`;
const all: Scenario[] = [
  { name: 'GET /api/v1/contacts/:id', path: `/api/v1/contacts/${info.contactId}`, kind: 'read', floor: true },
  { name: 'GET /api/v1/contacts (25 per page)', path: '/api/v1/contacts', kind: 'read', floor: true },
  // Last42, Last420..Last4299 (1,111 contacts at 20,000): a full page and a count.
  // BENCH_SEARCH sets another term (bench/list-scale.ts: one that matches as many at every size).
  { name: `GET /api/v1/contacts?search=${search}`, path: `/api/v1/contacts?search=${encodeURIComponent(search)}`, kind: 'read', floor: true },
  { name: 'POST /api/v1/contacts', path: '/api/v1/contacts', method: 'POST', body: contactBody, kind: 'write', floor: true },
  { name: 'GET /api/v1/quotes/:id (10 line items)', path: `/api/v1/quotes/${info.quoteId}`, kind: 'read', floor: true },
  { name: 'GET /api/v1/quotes?status=awaiting_response', path: '/api/v1/quotes?status=awaiting_response', kind: 'read', floor: true },
  {
    name: 'POST /api/v1/quotes (10 line items)',
    path: '/api/v1/quotes',
    method: 'POST',
    body: JSON.stringify({ name: 'Bench', contact_id: info.contactId, line_items: tenItems, discount: 5, tax_rate: 8 }),
    kind: 'write',
    floor: true,
  },
  {
    name: 'PUT /api/v1/quotes/:id/status accepted (creates the job)',
    path: '',
    method: 'PUT',
    body: JSON.stringify({ status: 'accepted' }),
    paths: appAccepts.slice(0, -1),
    floorPaths: floorAccepts.slice(0, -1),
    kind: 'write',
    floor: true,
  },
  { name: 'GET /api/v1/invoices (25 per page)', path: '/api/v1/invoices', kind: 'read', floor: true },
  {
    name: 'POST /api/v1/invoices/:id/payments (locks the invoice, moves the balance)',
    path: `/api/v1/invoices/${info.payableInvoiceId}/payments`,
    floorPath: `/api/v1/invoices/${info.floorPayableInvoiceId}/payments`,
    method: 'POST',
    body: JSON.stringify({ amount: 0.01, method: 'card' }),
    kind: 'write',
    floor: true,
  },
  { name: 'GET /api/v1/events (a week of the calendar, with assignees)', path: `/api/v1/events?${week}`, kind: 'read', floor: true },
  { name: 'GET /hub/<token>/quotes/:id (customer hub page, 10 line items)', path: info.hubQuotePath, kind: 'read', floor: true },
  // The app's Home data (Fieldwork Office, A2): counts, 12 months of payments, the latest activity.
  { name: 'GET /api/v1/home (the app\'s Home data)', path: '/api/v1/home', kind: 'read', floor: true },
  // Without a floor (yet): measured for their req/s and p99 only.
  // E12: a sync page, the ~600 contacts updated in the last 10 minutes of the seed. The window
  // ends where the bench starts: without its end, the contacts the POSTs above add (tens of
  // thousands) joined it, and the page's count for total_pages grew with them until wrk timed out.
  {
    name: 'GET /api/v1/contacts?updated_since=<10 min before the bench>&updated_before=<its start>&sort_by=updated_at (sync page)',
    path: `/api/v1/contacts?updated_since=${encodeURIComponent(new Date(benchStart - 600_000).toISOString())}&updated_before=${encodeURIComponent(new Date(benchStart).toISOString())}&sort_by=updated_at&sort_direction=asc`,
    kind: 'read',
  },
  // E11's cost: the same create with a fresh Idempotency-Key on every request (claimed, then stored with the effect).
  { name: 'POST /api/v1/contacts with a fresh Idempotency-Key', path: '/api/v1/contacts', method: 'POST', uniqueHeader: 'Idempotency-Key', body: contactBody, kind: 'write' },
  {
    name: 'POST /api/forms/embed-request (website form)',
    path: '/api/forms/embed-request',
    method: 'POST',
    body: JSON.stringify({ apiKey: info.formKey, formData: { firstName: 'Web', lastName: 'Visitor', email: 'web@example.test', phone: '+15550100', description: 'Leaking tap in the kitchen' } }),
    kind: 'write',
  },
  // E9: read, lay out and compress a 50-line invoice (3 pages) per request.
  { name: 'GET /api/v1/invoices/:id/pdf (50 line items)', path: `/api/v1/invoices/${info.pdfInvoiceId}/pdf`, kind: 'read' },
  {
    name: 'POST /api/v1/notifications quote_to_customer (queues the email)',
    path: '/api/v1/notifications',
    method: 'POST',
    body: JSON.stringify({ type: 'quote_to_customer', module_id: info.sentQuoteId }),
    kind: 'write',
  },
];
// BENCH_ONLY=contacts runs the scenarios whose name contains that text (and the bare route).
const only = process.env.BENCH_ONLY;
const scenarios = only ? all.filter((s) => s.name.includes(only)) : all;

type Answer = { status: number; body: string };
const ask = async (base: string, s: Scenario, p: string): Promise<Answer> => {
  const r = await fetch(`${base}${p}`, { method: s.method ?? 'GET', headers, ...(s.body && { body: s.body }) });
  return { status: r.status, body: await r.text() };
};
// A read's answer must be the app's, value for value (key order aside); a write's, the
// same fields (its values are new ids and times). Checked once, before any load.
const shape = (v: unknown): unknown =>
  Array.isArray(v) ? v.slice(0, 1).map(shape) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as Record<string, unknown>)[k])])) : typeof v;
const sorted = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
for (const s of scenarios.filter((x) => x.floor)) {
  const appPath = s.paths ? appAccepts[appAccepts.length - 1] : s.path;
  const floorPath = s.floorPaths ? floorAccepts[floorAccepts.length - 1] : (s.floorPath ?? s.path);
  const [a, f] = [await ask(info.app, s, appPath), await ask(floor, s, floorPath)];
  const same = (x: Answer) => {
    if (x.body.startsWith('<')) return x.body;
    const v = JSON.parse(x.body) as unknown;
    return JSON.stringify(s.kind === 'read' ? sorted(v) : shape(v));
  };
  if (a.status !== f.status || same(a) !== same(f)) {
    console.error(`The floor does not answer as the app: ${s.name}\napp ${a.status}: ${a.body.slice(0, 2000)}\nfloor ${f.status}: ${f.body.slice(0, 2000)}`);
    process.exitCode = 2;
  }
}
if (process.exitCode === 2) {
  for (const p of [server, bare, floorProcess]) p.child.kill('SIGTERM');
  process.exit(2);
}

const statements = async () => ((await (await fetch(`${info.side}/statements`)).json()) as { statements: number }).statements;
interface Result {
  name: string;
  kind: 'read' | 'write' | 'bare';
  rps: number;
  p99: number;
  /** The median round's p99: what bench/list-scale.ts compares between sizes (one disturbed round moves a mean). */
  p99Median: number;
  bad: number;
  perRequest: number | null;
  /** The app's peak RSS while this scenario ran, MB. */
  peakRssMb?: number;
  floor?: { rps: number; p99: number; bad: number };
  /** Median over the rounds of the app's req/s over the floor's, and of the p99s' ratio. */
  share?: number;
  p99Ratio?: number;
}
const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const results: Result[] = [];
const bareRun = await load({ url: `${info.bare}/bare`, connections, seconds });
results.push({ name: 'bare Fastify route (ceiling)', kind: 'bare', rps: bareRun.rps, p99: bareRun.p99, p99Median: bareRun.p99, bad: bareRun.bad, perRequest: null });
for (const s of scenarios) {
  const { name, path: p, kind, floor: withFloor, floorPaths, floorPath, optional, ...rest } = s;
  if (optional && (await ask(info.app, s, p)).status >= 300) {
    console.error(`${name}: skipped (the app does not answer it yet)`);
    continue;
  }
  // One-shot paths are dealt out to the rounds, each used once.
  const deal = (paths: string[] | undefined, i: number) => paths?.slice(Math.floor((paths.length * i) / rounds), Math.floor((paths.length * (i + 1)) / rounds));
  const appRuns: LoadResult[] = [];
  const floorRuns: LoadResult[] = [];
  let ran = 0;
  scenarioPeakRss = 0;
  for (let i = 0; i < (withFloor ? rounds : 1); i++) {
    const before = await statements();
    appRuns.push(await load({ headers, connections, seconds, ...rest, url: `${info.app}${p}`, ...(rest.paths && { paths: deal(rest.paths, i) }) }));
    ran += (await statements()) - before;
    if (withFloor) floorRuns.push(await load({ headers, connections, seconds, ...rest, url: `${floor}${floorPath ?? p}`, ...(floorPaths && { paths: deal(floorPaths, i) }) }));
  }
  // Throughput and p99 as the means over the rounds (the shares are the rounds' medians, below).
  const merge = (runs: LoadResult[]) => ({
    rps: runs.reduce((a, x) => a + x.rps, 0) / runs.length,
    p99: Math.round((runs.reduce((a, x) => a + x.p99, 0) / runs.length) * 100) / 100,
    bad: runs.reduce((a, x) => a + x.bad, 0),
  });
  const r = merge(appRuns);
  const f = withFloor ? merge(floorRuns) : undefined;
  const perRequest = Math.round((ran / Math.max(r.rps * seconds * appRuns.length, 1)) * 10) / 10;
  const share = f && median(appRuns.map((a, i) => a.rps / floorRuns[i].rps));
  const p99Ratio = f && median(appRuns.map((a, i) => a.p99 / floorRuns[i].p99));
  const peakRssMb = Math.round(scenarioPeakRss / 1024);
  results.push({ name, kind, rps: r.rps, p99: r.p99, p99Median: median(appRuns.map((a) => a.p99)), bad: r.bad + (f?.bad ?? 0), perRequest, peakRssMb, ...(f && { floor: { rps: f.rps, p99: f.p99, bad: f.bad }, share, p99Ratio }) });
  // Every round's ratios, so a tail carried by a few rounds shows against one in every round.
  const rounded = (ratio: (a: LoadResult, f: LoadResult) => number) => ` (rounds: ${appRuns.map((a, i) => ratio(a, floorRuns[i]).toFixed(2)).join(', ')})`;
  const vs = f
    ? `; floor ${Math.round(f.rps)} req/s, p99 ${f.p99} ms: share ${share?.toFixed(2)}${rounded((a, b) => a.rps / b.rps)}, p99 ${p99Ratio?.toFixed(2)}x${rounded((a, b) => a.p99 / b.p99)}`
    : '';
  const mb = (n: number) => Math.round(n / 2 ** 20);
  const memory = (await (await fetch(`${info.side}/memory`)).json()) as NodeJS.MemoryUsage & { spaces?: string };
  const after = `RSS ${mb(memory.rss)} MB after (V8 heap ${mb(memory.heapUsed)} used of ${mb(memory.heapTotal)}, external ${mb(memory.external)}; ${memory.spaces})`;
  console.error(`${name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, statements/request ${perRequest}, bad ${r.bad}, peak RSS ${peakRssMb} MB, ${after}${vs}`);
}
clearInterval(rssTimer);
const peakRssMb = Math.round(peakRss / 1024);
for (const p of [server, bare, floorProcess]) p.child.kill('SIGTERM');

const ceiling = results[0].rps;
const target = (r: Result) => {
  if (r.share === undefined || r.p99Ratio === undefined) return '-';
  const ok = r.share >= (r.kind === 'read' ? 0.85 : 0.6) && r.p99Ratio <= 2;
  return ok ? 'yes' : 'no';
};
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — ${info.dialect}, ${loadTool}, ${runner}, ${connections} connections, against the floor (bench/floor.ts): ${rounds} rounds of ${seconds}s each for the app and its floor, alternating`,
  '',
  '| scenario | req/s | floor req/s | share of the floor (median of rounds) | p99 ms | floor p99 ms | p99 / floor p99 (median of rounds) | target met | ratio to bare | statements/request | non-2xx | peak RSS of the app, MB |',
  '|---|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|---:|',
  ...results.map((r) =>
    [
      r.name,
      Math.round(r.rps),
      r.floor ? Math.round(r.floor.rps) : '-',
      r.share?.toFixed(2) ?? '-',
      r.p99,
      r.floor?.p99 ?? '-',
      r.p99Ratio?.toFixed(2) ?? '-',
      target(r),
      (r.rps / ceiling).toFixed(2),
      r.perRequest ?? '-',
      r.bad,
      r.peakRssMb ?? '-',
    ].join(' | ').replace(/^/, '| ').concat(' |'),
  ),
  '',
  `Targets: a read >= 0.85 of its floor, a write >= 0.6, p99 within 2x of the floor's. Peak RSS of the app's process under load: ${peakRssMb} MB.`,
  '',
].join('\n');
console.log(table);
// BENCH_JSON=<file>: the results for a script that compares runs (bench/list-scale.ts).
if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ dialect: info.dialect, ceiling, results, peakRssMb }));
process.exit(results.some((r) => r.bad > 0) ? 1 : 0);
