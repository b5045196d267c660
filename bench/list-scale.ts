// `npx tsx bench/list-scale.ts`: a contacts list page and a selective search at
// 10,000 then 1,000,000 contacts in one workspace (migration 0009), each next to a
// bare Fastify route measured in the same run. SQLite by default (a temporary file);
// BENCH_DATABASE_URL=postgres://... runs on a temporary database created on that
// server and dropped at the end. BENCH_SECONDS (5) per wrk run, BENCH_SIZES
// (10000,1000000). Appends a table to bench/RESULTS.md.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const sizes = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
const base = process.env.BENCH_DATABASE_URL;
const TERM = 'c4321@'; // one contact's email (c4321@example.test): a selective search

let url: string;
let dropDatabase = async () => {};
if (base) {
  const name = `fieldwork_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  url = u.toString();
  dropDatabase = async () => {
    const a = new pg.Client({ connectionString: base });
    await a.connect();
    await a.query(`drop database if exists "${name}" with (force)`);
    await a.end();
  };
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-list-scale-'));
  url = `sqlite:${path.join(dir, 'bench.db')}`;
  dropDatabase = async () => fs.rmSync(dir, { recursive: true, force: true });
}

const database = createDb(url);
await migrate(database);
const { db, dialect } = database;
const { workspace } = await createWorkspace(db, { name: 'List scale', owner: { email: 'bench@example.test', first_name: 'Ben', last_name: 'Ch' } });
const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });

/** Contacts `from`..`to` of the workspace, in one statement (triggers included). */
async function grow(from: number, to: number) {
  const started = Date.now();
  if (dialect === 'postgres') {
    await sql`insert into contacts (workspace_id, first_name, last_name, email, phone, type, created_at, updated_at)
      select ${workspace.id}, 'First' || i, 'Last' || i, 'c' || i || '@example.test', '555-' || lpad(i::text, 7, '0'),
        case when i % 2 = 1 then 'customer' else 'lead' end,
        to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      from generate_series(${from}::int, ${to}::int) as g(i)`.execute(db);
    // What autovacuum would do after such a load: statistics, and the GIN pending list
    // (fastupdate) merged into the index, which a scan would otherwise read in full.
    await sql`vacuum (analyze) contacts`.execute(db);
  } else {
    // Cast: a JS number binds as a real in better-sqlite3 (1.0 would print as "1.0").
    await sql`with recursive g(i) as (select cast(${from} as integer) union all select i + 1 from g where i < ${to})
      insert into contacts (workspace_id, first_name, last_name, email, phone, type, created_at, updated_at)
      select ${workspace.id}, 'First' || i, 'Last' || i, 'c' || i || '@example.test', '555-' || printf('%07d', i),
        case when i % 2 = 1 then 'customer' else 'lead' end,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds'),
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds')
      from g`.execute(db);
  }
  console.error(`seeded contacts ${from}..${to} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const bare = Fastify();
bare.get('/bare', async () => ({ success: true, data: { ok: true } }));
const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });
const config = loadConfig({ ...process.env, API_RATE_LIMIT: '100000000/1m', LOG_LEVEL: 'warn' });
const app = await buildApp({ config, database, logger: false });
const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });
const auth = `authorization: Bearer ${key.token}`;

interface Run {
  rps: number;
  p99: number;
  bad: number;
}

function wrk(target: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/wrk', ['-t1', '-c32', `-d${seconds}s`, '--latency', '-H', auth, target], (err, stdout) => {
      if (err) return reject(err);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
      const m = /^\s+99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(stdout);
      const p99 = m ? Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[m[2] as 'us' | 'ms' | 's'] : Number.NaN;
      const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
      resolve({ rps, p99, bad });
    });
  });
}

const scenarios = [
  { name: 'bare Fastify route', url: `${bareAddress}/bare` },
  { name: 'GET /api/v1/contacts (a page of 25)', url: `${appAddress}/api/v1/contacts` },
  { name: `GET /api/v1/contacts?search=${TERM}`, url: `${appAddress}/api/v1/contacts?search=${encodeURIComponent(TERM)}` },
];

const results: { size: number; name: string; run: Run; ratio: number }[] = [];
let have = 0;
for (const size of sizes) {
  await grow(have + 1, size);
  have = size;
  // Each scenario answers what it should before it is measured.
  const get = async (u: string) => (await app.inject({ url: new URL(u).pathname + new URL(u).search, headers: { authorization: `Bearer ${key.token}` } })).json();
  const list = await get(scenarios[1].url);
  const found = await get(scenarios[2].url);
  if (list.data?.length !== 25 || list.pagination.total_pages !== Math.ceil(size / 25)) throw new Error(`list: ${JSON.stringify(list.pagination)}`);
  if (found.data?.length !== 1) throw new Error(`search: ${JSON.stringify(found).slice(0, 200)}`);
  let ceiling = 0;
  for (const s of scenarios) {
    const run = await wrk(s.url);
    if (!ceiling) ceiling = run.rps;
    results.push({ size, name: s.name, run, ratio: run.rps / ceiling });
    console.error(`${size} ${s.name}: ${run.rps.toFixed(0)} req/s, p99 ${run.p99.toFixed(1)} ms, ratio ${(run.rps / ceiling).toFixed(2)}, non-2xx ${run.bad}`);
  }
}

await app.close();
await bare.close();
await database.close();
await dropDatabase();

const p99At = (size: number, name: string) => results.find((r) => r.size === size && r.name === name)?.run.p99 ?? Number.NaN;
const growth = scenarios
  .slice(1)
  .map((s) => `${s.name}: ${(p99At(sizes[sizes.length - 1], s.name) / p99At(sizes[0], s.name)).toFixed(2)}x`)
  .join('; ');
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — list scale (\`npx tsx bench/list-scale.ts\`), ${dialect}, wrk -t1 -c32, ${seconds}s per run`,
  '',
  '| contacts | scenario | req/s | ratio to bare | p99 ms | non-2xx |',
  '|---:|---|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.size} | ${r.name} | ${r.run.rps.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.run.p99.toFixed(1)} | ${r.run.bad} |`),
  '',
  `p99 at ${sizes[sizes.length - 1]} / at ${sizes[0]}: ${growth}.`,
  '',
].join('\n');
fs.appendFileSync(path.join(import.meta.dirname, 'RESULTS.md'), `\n${table}`);
console.log(table);
