// `npx tsx bench/list-scale.ts`: the contacts scenarios of bench/run.ts (single GET,
// a list page, a selective search, a create) at 10,000 and then 1,000,000 contacts in
// one workspace, each run next to the bare route, and how their p99 grows between
// the two sizes (the target: within 2x). BENCH_DATABASE_URL=postgres://... for
// PostgreSQL; BENCH_SIZES (10000,1000000), BENCH_SECONDS (5), BENCH_ROUNDS (5). The p99
// compared is each size's median round: on this machine one round's p99 can be 3x the
// next one's with nothing changed, and a mean carries that round.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const sizes = (process.env.BENCH_SIZES ?? '10000,1000000').split(',').map(Number);
interface Run {
  dialect: string;
  results: { name: string; rps: number; p99: number; p99Median: number; bad: number; perRequest: number | null }[];
  ceiling: number;
  peakRssMb: number;
}
const runs: Run[] = sizes.map((size) => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'list-scale-')), 'run.json');
  // The search is for one contact's email (`c4242@example.test`): one match at every
  // size, so the two sizes run the same query (Last42 matched 111 at 10,000, 111,111 at a million).
  const env = { ...process.env, BENCH_CONTACTS: String(size), BENCH_ROUNDS: process.env.BENCH_ROUNDS ?? '5', BENCH_ONLY: 'contacts', BENCH_QUOTES: '10', BENCH_DRAFTS: '0', BENCH_JSON: out, BENCH_SEARCH: 'c4242@' };
  try {
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/run.ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch (err) {
    // run.ts exits 1 when a request failed or timed out; its results (with their count
    // of bad answers, shown below) are still written.
    if (!fs.existsSync(out)) throw err;
  }
  return JSON.parse(fs.readFileSync(out, 'utf8')) as Run;
});

const rows = runs.flatMap((run, i) =>
  run.results.map((r) => `| ${sizes[i]} | ${r.name} | ${Math.round(r.rps)} | ${(r.rps / run.ceiling).toFixed(2)} | ${r.p99Median} | ${r.perRequest ?? '-'} | ${r.bad} |`),
);
const first = runs[0].results;
const last = runs[runs.length - 1].results;
const growth = first
  .slice(1)
  .map((r, i) => `${r.name}: ${(last[i + 1].p99Median / r.p99Median).toFixed(2)}x`)
  .join('; ');
const table = [
  `### ${new Date().toISOString().slice(0, 10)} — list scale (\`npx tsx bench/list-scale.ts\`), ${runs[0].dialect}`,
  '',
  '| contacts | scenario | req/s | ratio to bare | p99 ms (median round) | statements/request | non-2xx |',
  '|---:|---|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  `p99 at ${sizes[sizes.length - 1]} over p99 at ${sizes[0]}: ${growth}. Peak RSS under load: ${runs.map((r) => `${r.peakRssMb} MB`).join(', ')}.`,
  '',
].join('\n');
console.log(table);
