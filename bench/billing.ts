// `npx tsx bench/billing.ts`: billing the work done (E22). Two figures, over real
// HTTP to the app in this process:
// 1. GET /api/v1/billable-work (the first page, 25 jobs) with 10,000 completed,
//    unbilled visits in the workspace (2,500 weekly jobs, 4 visits each): the median
//    and p95 of 50 requests after 5 warm-up ones. Target: under 200 ms.
// 2. POST /api/v1/invoices/batch over BENCH_JOBS (default 1,000) of those jobs, 4
//    completed visits each, once as drafts and once with `send: true` (every client
//    has an email: an email queued and the invoice sent). Target: under 10 s each.
// SQLite by default; BENCH_DATABASE_URL=postgres://... (a scratch database created and
// dropped). Prints its table; bench/RESULTS.md is updated by hand when a change is measured.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { addDays } from '../src/domain/recurrence.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { scratchDatabase } from './scratch.ts';

const batchJobs = Number(process.env.BENCH_JOBS ?? 1_000);
const listJobs = 2_500; // 4 visits each: 10,000 completed visits
const scratch = await scratchDatabase();
const database = createDb(scratch.url);
await migrate(database);
const { db, dialect } = database;
const { workspace } = await createWorkspace(db, { name: 'Billing', owner: { email: 'bench@example.test' } });
const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });
const ws = workspace.id;
const at = new Date().toISOString();
const today = at.slice(0, 10);

// Seed in chunks: a client (with an email) per job, weekly recurring jobs, 4 completed visits each.
const CHUNK = 500;
const items = JSON.stringify([
  { id: '00000000-0000-4000-8000-000000000001', _type: 'lineItem', name: 'Mowing', description: 'Front and back', quantity: 1, unitPrice: 45.55, taxable: true, optional: false },
  { id: '00000000-0000-4000-8000-000000000002', _type: 'lineItem', name: 'Edging', description: null, quantity: 3, unitPrice: 3.33, taxable: false, optional: false },
]);
for (let start = 0; start < listJobs; start += CHUNK) {
  const n = Math.min(CHUNK, listJobs - start);
  const contacts = await db
    .insertInto('contacts')
    .values(Array.from({ length: n }, (_, i) => ({ workspace_id: ws, first_name: 'Client', last_name: `No${start + i}`, email: `c${start + i}@example.test`, type: 'client', created_at: at, updated_at: at })) as never)
    .returning('id')
    .execute();
  const jobs = await db
    .insertInto('jobs')
    .values(
      contacts.map((c, i) => ({
        workspace_id: ws,
        number: start + i + 1,
        name: `Lawn ${start + i + 1}`,
        contact_id: c.id,
        type: 'recurring',
        status: 'in_progress',
        line_items: items,
        discount: 10,
        discount_unit: '%',
        deposit: 0,
        deposit_unit: '%',
        tax_rate: 8.25,
        total: 0,
        expenses: '[]',
        custom_fields: null,
        created_at: at,
        updated_at: at,
      })) as never,
    )
    .returning('id')
    .execute();
  await db
    .insertInto('events')
    .values(
      jobs.flatMap((j) =>
        [28, 21, 14, 7].map((days) => ({ workspace_id: ws, job_id: j.id, name: 'Lawn', type: 'appointment', status: 'completed', start_date: addDays(today, -days), end_date: addDays(today, -days), all_day: 1, multi_day: 0, created_at: at, updated_at: at })),
      ) as never,
    )
    .execute();
}
if (dialect === 'postgres') await sql`analyze`.execute(db);

const app = await buildApp({ config: loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'warn', PUBLIC_URL: 'http://fieldwork.test' }), database, logger: false });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const headers = { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' };

// 1. billable-work at 10,000 completed visits.
async function list(): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${address}/api/v1/billable-work`, { headers });
  const body = (await res.json()) as { data: unknown[]; pagination: { total_pages: number } };
  if (res.status !== 200 || body.data.length !== 25 || body.pagination.total_pages !== listJobs / 25) throw new Error(`billable-work answered ${res.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}
for (let i = 0; i < 5; i++) await list();
const times: number[] = [];
for (let i = 0; i < 50; i++) times.push(await list());
times.sort((a, b) => a - b);

// 2. Two batches of `batchJobs` jobs each: drafts, then sent.
const jobIds = (await db.selectFrom('jobs').select('id').where('workspace_id', '=', ws).orderBy('id').execute()).map((r) => r.id);
async function batch(ids: number[], send: boolean): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${address}/api/v1/invoices/batch`, { method: 'POST', headers, body: JSON.stringify({ job_ids: ids, send }) });
  const body = (await res.json()) as { meta: { created: number; sent: number } };
  if (res.status !== 201 || body.meta.created !== ids.length || body.meta.sent !== (send ? ids.length : 0)) throw new Error(`batch answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}
const drafts = await batch(jobIds.slice(0, batchJobs), false);
const sent = await batch(jobIds.slice(batchJobs, 2 * batchJobs), true);
const billed = await db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', ws).where('invoice_id', 'is not', null).executeTakeFirstOrThrow();
if (Number(billed.n) !== 8 * batchJobs) throw new Error(`${billed.n} visits billed, expected ${8 * batchJobs}`);

await app.close();
await database.close();
await scratch.cleanup();
const median = times[Math.floor(times.length / 2)] as number;
const p95 = times[Math.floor(times.length * 0.95)] as number;
const lines = [
  `| ${today} | ${dialect} | GET /api/v1/billable-work, first page, 10,000 completed unbilled visits (${listJobs} jobs) | median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms |`,
  `| ${today} | ${dialect} | POST /api/v1/invoices/batch, ${batchJobs} jobs x 4 visits, drafts | ${drafts.toFixed(2)} s |`,
  `| ${today} | ${dialect} | POST /api/v1/invoices/batch, ${batchJobs} jobs x 4 visits, send: true (${batchJobs} emails queued) | ${sent.toFixed(2)} s |`,
];
console.log(lines.join('\n'));
