// `npx tsx bench/profile.ts`: where each scenario's CPU goes ("node --cpu-prof
// says why"). Starts bench/server.ts once (BENCH_PROFILING=1), then for each scenario
// profiles the serving during a wrk run and sorts the samples by the code they were in:
// the database driver, Kysely, Fastify, our HTTP layer (hooks, validation, auth,
// idempotency, transactions), our db layer (codec, list builder), the modules,
// generated serializers/validators, Node's HTTP and sockets, the garbage collector.
// BENCH_DATABASE_URL=postgres://... for PostgreSQL; BENCH_SECONDS (5); BENCH_ONLY=<text>;
// BENCH_CALLERS=1 also prints Kysely's share by the function of ours that called it;
// BENCH_PROFILE_DIR=<dir> keeps each scenario's .cpuprofile there.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from './load.ts';
import { startFlags } from './start-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
// With `npm start`'s V8 flags, as bench/run.ts runs it: the young generation they cap decides the GC's share.
const server = spawn(process.execPath, [...startFlags(), 'dist/bench/server.js'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, BENCH_PROFILING: '1', BENCH_QUOTES: process.env.BENCH_QUOTES ?? '2000', BENCH_DRAFTS: process.env.BENCH_DRAFTS ?? '4000' },
});
const info = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: server.stdout! }).once('line', resolve))) as {
  app: string;
  side: string;
  token: string;
  contactId: number;
  quoteId: number;
  quoteIds: number[];
  payableInvoiceId: number;
  hubQuotePath: string;
  calendarWeek: { start: string; end: string };
  dialect: string;
};
const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
const tenItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, unitPrice: 10 + i, quantity: 1 + (i % 3), taxable: i % 2 === 0 }));
const all: { name: string; path: string; method?: 'POST' | 'PUT'; body?: string; paths?: string[] }[] = [
  { name: 'GET /contacts/:id', path: `/api/v1/contacts/${info.contactId}` },
  { name: 'GET /contacts', path: '/api/v1/contacts' },
  { name: 'GET /contacts?search=Last42', path: '/api/v1/contacts?search=Last42' },
  { name: 'POST /contacts', path: '/api/v1/contacts', method: 'POST', body: JSON.stringify({ first_name: 'Load', last_name: 'Test', email: 'load@example.test' }) },
  { name: 'GET /quotes/:id', path: `/api/v1/quotes/${info.quoteId}` },
  { name: 'GET /quotes?status=', path: '/api/v1/quotes?status=awaiting_response' },
  { name: 'POST /quotes', path: '/api/v1/quotes', method: 'POST', body: JSON.stringify({ name: 'Bench', contact_id: info.contactId, line_items: tenItems, discount: 5, tax_rate: 8 }) },
  { name: 'PUT /quotes/:id/status', path: '', method: 'PUT', body: JSON.stringify({ status: 'accepted' }), paths: info.quoteIds.map((id) => `/api/v1/quotes/${id}/status`) },
  { name: 'GET /invoices', path: '/api/v1/invoices' },
  { name: 'POST /invoices/:id/payments', path: `/api/v1/invoices/${info.payableInvoiceId}/payments`, method: 'POST', body: JSON.stringify({ amount: 0.01, method: 'card' }) },
  { name: 'GET /events (a week)', path: `/api/v1/events?start_date=${info.calendarWeek.start}&end_date=${info.calendarWeek.end}&per_page=100` },
  { name: 'GET /hub quote page', path: info.hubQuotePath },
  { name: 'GET /home', path: '/api/v1/home' },
];
const scenarios = all.filter((s) => !process.env.BENCH_ONLY || s.name.includes(process.env.BENCH_ONLY));

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}
const BUCKETS: [string, (url: string, fn: string) => boolean][] = [
  ['database driver (SQLite/pg, native)', (u, f) => /better-sqlite3|node_modules\/pg/.test(u) || (u === '' && ['all', 'run', 'get', 'exec', 'prepare'].includes(f))],
  ['socket writes and HTTP (Node)', (u, f) => (u === '' && /^(writev|writeUtf8String|writeBuffer)$/.test(f)) || /^node:|^internal\//.test(u) || /node:internal/.test(u)],
  ['Kysely (building, compiling, driver)', (u) => u.includes('node_modules/kysely')],
  ['Fastify (routing, hooks, reply)', (u) => /node_modules\/(fastify|find-my-way|avvio|@fastify\/)/.test(u)],
  ['generated serializers and validators, native built-ins', (u) => u === '' || /fast-json-stringify|node_modules\/ajv/.test(u)],
  ['our HTTP layer (auth, validation, idempotency, transact, errors)', (u) => u.includes('/src/http/') || u.includes('/src/kernel/')],
  ['our db layer (codec, list builder, prepared, related)', (u) => u.includes('/src/db/') || u.includes('/src/outbox/')],
  ['modules and domain', (u) => u.includes('/src/modules/') || u.includes('/src/domain/')],
  ['templates (eta)', (u) => u.includes('node_modules/eta')],
  ['other dependencies', (u) => u.includes('node_modules/')],
];
// The server is bundled (F192): each frame is read back through the bundle's source
// map to the file it came from (src/..., node_modules/<package>/...), which the buckets name.
const maps = new Map<string, { map: SourceMap; dir: string } | null>();
function toSources(p: Profile): void {
  for (const { callFrame: frame } of p.nodes) {
    if (!frame.url.startsWith('file://')) continue;
    const file = fileURLToPath(frame.url);
    if (!maps.has(file)) maps.set(file, fs.existsSync(`${file}.map`) ? { map: new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8'))), dir: path.dirname(file) } : null);
    const bundle = maps.get(file);
    const entry = bundle?.map.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry && 'originalSource' in entry) frame.url = pathToFileURL(path.resolve(bundle!.dir, entry.originalSource)).href;
  }
}
function buckets(p: Profile): [string, number][] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const time = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const { functionName: fn, url } = byId.get(id)!.callFrame;
    if (fn === '(idle)') return;
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const name = fn === '(garbage collector)' ? 'garbage collector' : fn === '(program)' ? 'V8 and native (program)' : (BUCKETS.find(([, test]) => test(url, fn))?.[0] ?? 'other');
    time.set(name, (time.get(name) ?? 0) + dt);
  });
  return [...time].map(([k, v]): [string, number] => [k, v / total]).sort((a, b) => b[1] - a[1]);
}

// BENCH_CALLERS=1: Kysely's samples by the function of ours that called it (the nearest
// frame under src/), to tell which statements are still built per request.
function kyselyCallers(p: Profile): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    if (byId.get(id)!.callFrame.functionName !== '(idle)') total += dt;
    if (!byId.get(id)!.callFrame.url.includes('node_modules/kysely')) return;
    let at: number | undefined = id;
    while (at !== undefined && !byId.get(at)!.callFrame.url.includes('/src/')) at = parent.get(at);
    const frame = at === undefined ? undefined : byId.get(at)!.callFrame;
    const name = frame ? `${frame.functionName || '(anonymous)'} (${frame.url.slice(frame.url.indexOf('/src/') + 1)})` : '(no caller of ours)';
    time.set(name, (time.get(name) ?? 0) + dt);
  });
  return [...time]
    .sort((a, b) => b[1] - a[1])
    .filter(([, t]) => t / total >= 0.005)
    .map(([k, t]) => `${k} ${((t / total) * 100).toFixed(1)}%`)
    .join(', ');
}

const lines: string[] = [];
for (const s of scenarios) {
  await fetch(`${info.side}/profile/start`, { method: 'POST' });
  const r = await load({ url: `${info.app}${s.path}`, method: s.method, body: s.body, paths: s.paths, headers, connections: 32, seconds });
  const profile = (await (await fetch(`${info.side}/profile/stop`, { method: 'POST' })).json()) as Profile;
  toSources(profile);
  // BENCH_PROFILE_DIR=<dir>: each scenario's profile kept, to open in DevTools or read by function.
  if (process.env.BENCH_PROFILE_DIR) fs.writeFileSync(path.join(process.env.BENCH_PROFILE_DIR, `${s.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`), JSON.stringify(profile));
  const top = buckets(profile)
    .filter(([, share]) => share >= 0.02)
    .map(([k, share]) => `${k} ${Math.round(share * 100)}%`)
    .join(', ');
  lines.push(`| ${s.name} | ${Math.round(r.rps)} | ${top} |`);
  if (process.env.BENCH_CALLERS === '1') console.error(`  Kysely by caller: ${kyselyCallers(profile)}`);
  console.error(lines[lines.length - 1]);
}
server.kill('SIGTERM');
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — where the CPU goes (\`npx tsx bench/profile.ts\`), ${info.dialect}, ${seconds}s per scenario under wrk`,
  '',
  '| scenario | req/s (profiled) | share of the busy CPU, by the code it was in (>= 2%) |',
  '|---|---:|---|',
  ...lines,
  '',
].join('\n');
console.log(table);
process.exit(0);
