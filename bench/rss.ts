// `npx tsx bench/rss.ts`: the API process started on its own (`node dist/src/main.js` with
// the V8 flags of `npm start`,
// the embedded worker on) over a database bench/fixture.ts seeded, and its resident
// memory sampled every 100 ms: idle, then through the single GET, the list, the search,
// a create and the 50-line invoice PDF at 20 a second (the target: under 150 MB through
// the whole bench). BENCH_DATABASE_URL=postgres://... for PostgreSQL; BENCH_SECONDS (8).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { load } from './load.ts';
import { startFlags } from './start-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-rss-')), 'bench.db')}`;

// Seed with bench/fixture.ts (it exits when done): the measured process never seeded anything.
const seeder = spawn(process.execPath, ['dist/bench/fixture.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_QUOTES: '500', BENCH_DRAFTS: '0' } });
const seeded = new Promise((resolve) => seeder.once('exit', resolve));
const info = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: seeder.stdout! }).once('line', resolve))) as {
  token: string;
  contactId: number;
  pdfInvoiceId: number;
};
await seeded;

// Started as `npm start` starts it: with the V8 flags of its script (F167).
const app = spawn(process.execPath, [...startFlags(), 'dist/src/main.js'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, DATABASE_URL: url, PORT: '38471', HOST: '127.0.0.1', LOG_LEVEL: 'warn', API_RATE_LIMIT: '100000000/1m' },
});
const base = 'http://127.0.0.1:38471';
for (let i = 0; ; i++) {
  if (await fetch(`${base}/api/v1/contacts/1`).then(() => true, () => false)) break;
  if (i > 300) throw new Error('the server did not start');
  await new Promise((r) => setTimeout(r, 100));
}
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${app.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 100);
await new Promise((r) => setTimeout(r, 3000));
const idle = rssMb();
const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
const rows: string[] = [];
const step = async (name: string, run: () => Promise<unknown>) => {
  peak = 0;
  await run();
  rows.push(`| ${name} | ${Math.round(rssMb())} | ${Math.round(peak)} |`);
};
await step('GET /api/v1/contacts/:id', () => load({ url: `${base}/api/v1/contacts/${info.contactId}`, headers, seconds }));
await step('GET /api/v1/contacts (25 per page)', () => load({ url: `${base}/api/v1/contacts`, headers, seconds }));
await step('GET /api/v1/contacts?search=Last42', () => load({ url: `${base}/api/v1/contacts?search=Last42`, headers, seconds }));
await step('POST /api/v1/contacts', () => load({ url: `${base}/api/v1/contacts`, method: 'POST', body: JSON.stringify({ first_name: 'Rss', last_name: 'Test' }), headers, seconds }));
await step('20 PDFs/s (50-line invoice) and the single GET', async () => {
  const began = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    for (const due = Math.floor(((performance.now() - began) / 1000) * 20); sent < due; sent++) {
      void fetch(`${base}/api/v1/invoices/${info.pdfInvoiceId}/pdf`, { headers }).then((r) => r.arrayBuffer(), () => undefined);
    }
  }, 10);
  await load({ url: `${base}/api/v1/contacts/${info.contactId}`, headers, seconds });
  clearInterval(timer);
});
clearInterval(sampler);
app.kill('SIGTERM');
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — RSS of the API started on its own (\`npx tsx bench/rss.ts\`), ${url.startsWith('sqlite') ? 'sqlite' : 'postgres'}, 20,000 contacts, ${seconds}s per load`,
  '',
  `Idle after start: ${Math.round(idle)} MB.`,
  '',
  '| load | RSS after, MB | peak during, MB |',
  '|---|---:|---:|',
  ...rows,
  '',
].join('\n');
console.log(table);
process.exit(0);
