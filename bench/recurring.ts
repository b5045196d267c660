// `npx tsx bench/recurring.ts`: recurring jobs (E20). Two figures:
// 1. POST /api/v1/jobs of a weekly job whose year of visits is made in the same
//    write (53 events, their assignees and 54 outbox rows), over real HTTP to the app
//    in this process, one request at a time: the median and p95 of BENCH_CREATES
//    (default 200) after 20 warm-up creates, and the statements one create ran.
// 2. The recurring daily run (runRecurringDay) over BENCH_JOBS (default 5,000)
//    recurring weekly jobs of one workspace, each due to be extended by one day.
// SQLite by default; BENCH_DATABASE_URL=postgres://... (a scratch database created and
// dropped). Prints its table; bench/RESULTS.md is updated by hand when a change is measured.
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { addDays } from '../src/domain/recurrence.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { runRecurringDay } from '../src/modules/jobs/recurring-daily.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { copyRows } from '../test/helpers.ts';
import { scratchDatabase } from './scratch.ts';

const creates = Number(process.env.BENCH_CREATES ?? 200);
const jobCount = Number(process.env.BENCH_JOBS ?? 5_000);
const scratch = await scratchDatabase();
let statements = 0;
const database = createDb(scratch.url, { onQuery: () => statements++ });
await migrate(database);
const { db, dialect } = database;
const { workspace, owner } = await createWorkspace(db, { name: 'Recurring', timezone: 'America/New_York', owner: { email: 'bench@example.test' } });
const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });

// 1. The create, over HTTP.
const app = await buildApp({ config: loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: 'warn' }), database, logger: false });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const today = zonedDate(Date.now(), 'America/New_York');
// The rule's weekday is the horizon's next day's, so the daily run below makes a visit for every series.
const horizon = addDays(today, 365);
const weekday = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'][(new Date(`${horizon}T12:00:00Z`).getUTCDay() + 6) % 7];
const body = JSON.stringify({
  name: 'Weekly lawn',
  type: 'recurring',
  status: 'scheduled',
  line_items: [{ name: 'Mowing', quantity: 1, unitPrice: 45 }],
  schedule: { rrule: `FREQ=WEEKLY;BYDAY=${weekday}`, starts_on: today, start_time: '09:00', end_time: '10:00', assignee_ids: [owner.user_id] },
});
async function create(): Promise<number> {
  const started = process.hrtime.bigint();
  const res = await fetch(`${address}/api/v1/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, body });
  const answer = (await res.json()) as { meta?: { visits_created: number } };
  if (res.status !== 201 || (answer.meta?.visits_created ?? 0) < 52) throw new Error(`create answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}
for (let i = 0; i < 20; i++) await create();
statements = 0;
await create();
const perCreate = statements;
const times: number[] = [];
for (let i = 0; i < creates; i++) times.push(await create());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] as number;
const p95 = times[Math.floor(times.length * 0.95)] as number;
await app.close();

// 2. The daily run: one job's row copied, every series made through yesterday's horizon.
const [template] = await db.selectFrom('jobs').select('id').where('workspace_id', '=', workspace.id).orderBy('id').limit(1).execute();
await db.deleteFrom('jobs').where('workspace_id', '=', workspace.id).where('id', '<>', template!.id).execute();
await copyRows(db, dialect, 'jobs', template!.id, jobCount);
await db.updateTable('jobs').set({ generated_through: addDays(horizon, -1) }).where('workspace_id', '=', workspace.id).execute();
if (dialect === 'postgres') await sql`analyze`.execute(db);
statements = 0;
const started = process.hrtime.bigint();
const result = await db.transaction().execute((trx) => runRecurringDay(trx, { id: workspace.id, timezone: 'America/New_York' }, today, 365));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const ran = statements;
// The template job's own visit on the horizon exists (its create made it): one fewer to make.
if (result.series !== jobCount || result.visits_created !== jobCount - 1) throw new Error(`extended ${result.series} of ${jobCount} series, ${result.visits_created} visits`);

await database.close();
await scratch.cleanup();
const date = new Date().toISOString().slice(0, 10);
const lines = [
  `| ${date} | ${dialect} | POST /api/v1/jobs, weekly, a year of visits (${creates} creates) | median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms | ${perCreate} statements |`,
  `| ${date} | ${dialect} | recurring daily run, ${jobCount} weekly series extended by a day (${result.visits_created} visits made) | ${seconds.toFixed(2)} s | ${ran} statements |`,
];
console.log(lines.join('\n'));
