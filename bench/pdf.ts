// `npx tsx bench/pdf.ts`: E9's PDFs off the event loop, two measurements.
// 1. The CPU one 50-line invoice PDF costs (the layout of bench/server.ts's invoice,
//    drawn BENCH_PDFS times in one thread after a warm-up; process CPU time, so the
//    garbage collector's threads count too).
// 2. GET /api/v1/contacts/:id under wrk (32 connections) alone and while 20 PDFs a second
//    are fetched from the same server, alternated in rounds after a warm-up run: its p99
//    with and without, round by round, and the median round's ratio.
// Both run with the V8 flags of `npm start` (its 4 MB young generation makes a PDF's
// garbage collection cost more than V8's defaults would): this script starts itself
// again with them, through tsx, and starts the server with them.
// BENCH_DATABASE_URL=postgres://... for PostgreSQL; BENCH_SECONDS (8), BENCH_ROUNDS (3).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { documentView } from '../src/domain/document-view.ts';
import { normalizeLineItems } from '../src/domain/line-items.ts';
import { draw } from '../src/modules/pdf/pdf-layout.ts';
import { load } from './load.ts';
import { startFlags } from './start-flags.ts';

if (!process.env.BENCH_PDF_FLAGS) {
  const run = spawnSync(process.execPath, [...startFlags(), '--import', 'tsx', import.meta.filename], { stdio: 'inherit', env: { ...process.env, BENCH_PDF_FLAGS: '1' } });
  process.exit(run.status ?? 1);
}

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);

// 1. CPU per PDF.
const lines = normalizeLineItems(
  Array.from({ length: 50 }, (_, i) => ({
    name: `Line ${i + 1}`,
    quantity: 1 + (i % 4),
    unitPrice: 12.5 + i,
    ...(i % 10 === 0 ? { description: 'Parts and labour as agreed on site. '.repeat(8) } : {}),
  })),
);
const view = documentView({ line_items: lines, discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 8, total: 0 }, 'USD');
const sheet = {
  title: 'Invoice #2',
  changedAt: new Date().toISOString(),
  workspaceName: 'Bench',
  businessLines: [],
  contactName: 'First1 Last1',
  name: 'Fifty lines',
  facts: [['Date', 'November 24, 2026']] as [string, string][],
  view,
  after: [
    ['Amount paid', '$0.00'],
    ['Balance due', view.total],
  ] as [string, string][],
  notes: [],
};
const n = Number(process.env.BENCH_PDFS ?? 300);
for (let i = 0; i < 50; i++) await draw(sheet);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) await draw(sheet);
const cpu = process.cpuUsage(cpu0);
const cpuMs = (cpu.user + cpu.system) / 1000 / n;
const wallMs = (performance.now() - t0) / n;
console.error(`50-line invoice PDF: ${cpuMs.toFixed(2)} ms CPU, ${wallMs.toFixed(2)} ms wall each (${n} in one thread)`);

// 2. The single GET's p99 with and without 20 PDFs a second.
execFileSync(process.execPath, ['scripts/build.mjs', 'bench'], { cwd: root, stdio: 'inherit' });
const server = spawn(process.execPath, [...startFlags(), 'dist/bench/server.js'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, BENCH_QUOTES: '10', BENCH_DRAFTS: '0' },
});
const info = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: server.stdout! }).once('line', resolve))) as {
  app: string;
  token: string;
  contactId: number;
  pdfInvoiceId: number;
  dialect: string;
};
const headers = { authorization: `Bearer ${info.token}` };
const single = { url: `${info.app}/api/v1/contacts/${info.contactId}`, headers, connections: 32, seconds };
// A first run warms the server up (its JIT, its caches): a cold first run measured a p99
// of 96 ms against 5 ms for the same run after it.
await load({ ...single, seconds: Math.min(seconds, 3) });
let made = 0;
let failed = 0;
const pdfUrl = `${info.app}/api/v1/invoices/${info.pdfInvoiceId}/pdf`;
// And the PDFs: the first starts the PDF thread (pdfkit and its metrics loaded, its code
// compiled), which fell in the first round with PDFs and put it at 2.4-4.0x while the
// rounds after it were at 1.0-1.5x. A thread lives 30 s idle, longer than a run alone.
for (let i = 0; i < 20; i++) await (await fetch(pdfUrl, { headers })).arrayBuffer();
/** The single GET under wrk while 20 PDFs a second are fetched (on the clock: a late tick sends the ones it owes). */
const withPdfs = async () => {
  const began = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - began) / 1000) * 20) - sent;
    for (let i = 0; i < due; i++, sent++) {
      fetch(pdfUrl, { headers })
        .then(async (r) => {
          await r.arrayBuffer();
          if (r.ok) made++;
          else failed++;
        })
        .catch(() => failed++);
    }
  }, 10);
  try {
    return await load(single);
  } finally {
    clearInterval(timer);
  }
};
// Runs alone and with PDFs alternate, in rounds (BENCH_ROUNDS, 3), each round's order the
// other way from the last: this machine's speed drifts by up to 2x within a minute (the
// single GET alone at 13,400 then 6,800 requests a second four rounds later), so one run
// alone and one with PDFs compare the drift as much as the PDFs.
const roundCount = Number(process.env.BENCH_ROUNDS ?? 3);
const rounds: { alone: Awaited<ReturnType<typeof load>>; pdfs: Awaited<ReturnType<typeof load>> }[] = [];
for (let r = 0; r < roundCount; r++) {
  if (r % 2 === 0) {
    const alone = await load(single);
    rounds.push({ alone, pdfs: await withPdfs() });
  } else {
    const pdfs = await withPdfs();
    rounds.push({ alone: await load(single), pdfs });
  }
}
server.kill('SIGTERM');
const ratios = rounds.map((r) => r.pdfs.p99 / r.alone.p99);
const median = [...ratios].sort((x, y) => x - y)[Math.floor(ratios.length / 2)];
const pdfSeconds = roundCount * seconds;
const rows = [
  `### ${new Date().toISOString().slice(0, 10)} — PDFs off the event loop (\`npx tsx bench/pdf.ts\`), ${info.dialect}, wrk, ${roundCount} rounds of ${seconds}s alone and with PDFs, 32 connections`,
  '',
  `A 50-line invoice PDF (3 pages): ${cpuMs.toFixed(2)} ms of CPU each (${n} drawn in one thread; ${wallMs.toFixed(2)} ms wall).`,
  '',
  '| round | GET /api/v1/contacts/:id alone: req/s | p99 ms | with PDFs: req/s | p99 ms | p99 with / alone |',
  '|---:|---:|---:|---:|---:|---:|',
  ...rounds.map((r, i) => `| ${i + 1} | ${Math.round(r.alone.rps)} | ${r.alone.p99} | ${Math.round(r.pdfs.rps)} | ${r.pdfs.p99} | ${ratios[i].toFixed(2)}x |`),
  '',
  `${(made / pdfSeconds).toFixed(1)} PDFs a second made while loaded (${failed} failed). p99 with PDFs over p99 alone, the median round: ${median.toFixed(2)}x (target: 1.5x).`,
  '',
].join('\n');
console.log(rows);
process.exit(0);
