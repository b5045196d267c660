// `npx tsx bench/soak.ts`: the API as `npm start` runs it (`dist/src/main.js` with the
// start script's V8 flags, the embedded worker on), over a database bench/fixture.ts
// seeded, under a mixed load for SOAK_SECONDS (120): wrk with 32 connections, each
// request in turn a contact's GET, a page of the contact list, a contact created and a
// contact updated. Its resident memory is sampled every second and printed every 10 s,
// with the peak. BENCH_DATABASE_URL=postgres://... for PostgreSQL. SOAK_SNAPSHOTS=DIR:
// a V8 heap snapshot at 20 s and at the end, written into DIR (--heapsnapshot-signal),
// to compare in Chrome's DevTools or with bench/heap-diff.ts (they inflate the RSS while
// written: do not read the memory of such a run).
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { startFlags } from './start-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.SOAK_SECONDS ?? 120);
const snapshots = process.env.SOAK_SNAPSHOTS ? path.resolve(process.env.SOAK_SNAPSHOTS) : null;
execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-soak-')), 'bench.db')}`;

const seeder = spawn(process.execPath, ['dist/bench/fixture.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_DATABASE_URL: url, BENCH_QUOTES: '500', BENCH_DRAFTS: '0' } });
const seeded = new Promise((resolve) => seeder.once('exit', resolve));
const info = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: seeder.stdout! }).once('line', resolve))) as { token: string; contactId: number };
await seeded;

const port = 38000 + Math.floor(Math.random() * 1000);
if (snapshots) fs.mkdirSync(snapshots, { recursive: true });
const flags = [...startFlags(), ...(snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`] : [])];
const app = spawn(process.execPath, [...flags, 'dist/src/main.js'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', API_RATE_LIMIT: '100000000/1m' },
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (await fetch(`${base}/healthz`).then(() => true, () => false)) break;
  if (i > 300) throw new Error('the server did not start');
  await new Promise((r) => setTimeout(r, 100));
}
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${app.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const load1 = () => os.loadavg()[0].toFixed(1);

const lua = (s: string) => JSON.stringify(s);
const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-soak-')), 'soak.lua');
const auth = `Bearer ${info.token}`;
fs.writeFileSync(
  script,
  [
    `wrk.headers["authorization"] = ${lua(auth)}`,
    'wrk.headers["content-type"] = "application/json"',
    'local n = 0',
    'request = function()',
    '  n = n + 1',
    '  local k = n % 4',
    `  if k == 0 then return wrk.format("GET", ${lua(`/api/v1/contacts/${info.contactId}`)}, nil, "") end`,
    '  if k == 1 then return wrk.format("GET", "/api/v1/contacts", nil, "") end',
    '  if k == 2 then return wrk.format("POST", "/api/v1/contacts", nil, \'{"first_name":"Soak","last_name":"Test \' .. n .. \'"}\') end',
    `  return wrk.format("PUT", ${lua(`/api/v1/contacts/${info.contactId}`)}, nil, '{"last_name":"Updated ' .. n .. '"}')`,
    'end',
  ].join('\n'),
);

const idle = rssMb();
const samples: { at: number; rss: number; load: string }[] = [];
const began = Date.now();
const sampler = setInterval(() => {
  const at = Math.round((Date.now() - began) / 1000);
  samples.push({ at, rss: rssMb(), load: load1() });
  if (snapshots && at === 20) app.kill('SIGUSR2');
}, 1000);
const out = await new Promise<string>((resolve, reject) =>
  execFile('wrk', ['-t1', '-c32', `-d${seconds}s`, '--latency', '-s', script, base], { maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
);
clearInterval(sampler);
if (snapshots) {
  app.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 15_000)); // the snapshot is written synchronously by the app's thread
}
app.kill('SIGTERM');

const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
const p99 = /99%\s+(\S+)/.exec(out)?.[1];
const peak = Math.max(...samples.map((s) => s.rss));
const rows = samples.filter((s) => s.at % 10 === 0 || s === samples.at(-1));
console.log(
  [
    `### ${new Date().toISOString().slice(0, 16)}Z soak (\`npx tsx bench/soak.ts\`), ${url.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL'}, ${seconds} s, 32 connections`,
    '',
    `${rps} req/s (GET, list, create, update in turn), p99 ${p99}, ${non2xx} non-2xx. RSS idle after start ${Math.round(idle)} MB, **peak ${Math.round(peak)} MB**.`,
    '',
    '| s | RSS, MB | load average (1 min) |',
    '|---:|---:|---:|',
    ...rows.map((s) => `| ${s.at} | ${Math.round(s.rss)} | ${s.load} |`),
    '',
  ].join('\n'),
);
process.exit(0);
