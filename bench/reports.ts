// `npx tsx bench/reports.ts`: the five reports of E27 over one workspace with 100,000
// invoices, 300,000 payments, 200,000 time entries, 20,000 jobs (half with an expense)
// and 20,000 quotes (and their status changes), spread over the last two years, seeded
// with set-based SQL (a recursive CTE on SQLite, generate_series on PostgreSQL), not
// through the API. Each report is asked BENCH_ROUNDS times (default 7) through the
// app's own HTTP handling (inject), for the default range (this month) and for the last
// twelve months; the median and the slowest are printed, with the plans of the reports'
// statements. BENCH_DATABASE_URL=postgres://... for PostgreSQL (a fresh database:
// the tables are filled from empty).
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { addDays } from '../src/domain/weeks.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { addUser } from '../src/modules/users/users.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { seedContacts } from './seed.ts';

const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-reports-')), 'bench.db')}`;
const INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const PAYMENTS = 3 * INVOICES;
const ENTRIES = 2 * INVOICES;
const JOBS = INVOICES / 5;
const QUOTES = INVOICES / 5;
const CONTACTS = 5_000;
const MEMBERS = 20;
const DAYS = 730;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const database = createDb(url);
const { db, dialect } = database;
await migrate(database);
const { workspace, owner } = await createWorkspace(db, { name: `Reports ${Date.now()}`, owner: { email: 'reports@example.test', first_name: 'Rae', last_name: 'Ports' } });
const ws = workspace.id;
const key = await createKey(db, { workspaceId: ws, type: 'general' });
const members: string[] = [];
for (let i = 0; i < MEMBERS; i++) {
  const u = await addUser(db, ws, { email: `m${i}@example.test`, first_name: `Member${i}`, last_name: 'Bench' });
  await db.updateTable('users').set({ cost_rate_cents: 2000 + i * 150 }).where('id', '=', u.id).execute();
  members.push(u.user_id);
}
const t0 = Date.now();
const firstContact = (await seedContacts(database, ws, CONTACTS, owner.user_id)) - CONTACTS + 1;
const today = new Date().toISOString().slice(0, 10);
const base = addDays(today, -(DAYS - 1));
const at = new Date().toISOString();

/** `count` rows from `select` (over `i` = 1..count), in statements of 100,000. */
async function fill(table: string, columns: string, count: number, select: (i: ReturnType<typeof sql.raw>) => ReturnType<typeof sql>) {
  const i = sql.raw('i');
  for (let from = 1; from <= count; from += 100_000) {
    const to = Math.min(count, from + 99_999);
    if (dialect === 'sqlite') {
      await sql`insert into ${sql.raw(table)} (${sql.raw(columns)}) with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to}) ${select(i)} from n`.execute(db);
    } else {
      await sql`insert into ${sql.raw(table)} (${sql.raw(columns)}) ${select(i)} from generate_series(${from}::int, ${to}::int) as n(i)`.execute(db);
    }
  }
}
/** The day `offset` (an SQL integer expression) days after `base`, as `YYYY-MM-DD`. */
const day = (offset: ReturnType<typeof sql>) =>
  dialect === 'sqlite' ? sql`date(${base}, '+' || (${offset}) || ' days')` : sql`to_char(${base}::date + (${offset})::int, 'YYYY-MM-DD')`;
const json = (text: ReturnType<typeof sql>) => (dialect === 'sqlite' ? text : sql`(${text})::jsonb`);

const JOB_ITEMS = JSON.stringify([{ id: 'a', _type: 'lineItem', name: 'Boiler', description: null, quantity: 2, unitPrice: 100, taxable: true, optional: false, unit_cost: 60 }]);
const INVOICE_ITEMS = JSON.stringify([
  { id: 'a', _type: 'lineItem', name: 'Boiler', description: null, quantity: 2, unitPrice: 100, taxable: true, optional: false },
  { id: 'b', _type: 'lineItem', name: 'Labour', description: null, quantity: 3, unitPrice: 50, taxable: true, optional: false },
]);
const pricing = 'line_items, discount, discount_unit, deposit, deposit_unit, tax_rate, tax_rate_id, total';

await fill(
  'jobs',
  `workspace_id, number, name, contact_id, type, expenses, status, custom_fields, created_by, created_at, updated_at, ${pricing}`,
  JOBS,
  (i) => sql`select ${ws}, ${i}, 'Job ' || ${i}, ${firstContact} + ${i} % ${CONTACTS}, 'one-off',
    ${json(sql`case when ${i} % 2 = 0 then '[{"id":"e' || ${i} || '","name":"Fuel","description":null,"date":"' || ${day(sql`(${i} * 37) % ${DAYS}`)} || '","amount":12.5,"category":null,"receipt_upload_id":null}]' else '[]' end`)},
    'in_progress', ${json(sql`'{}'`)}, ${owner.user_id}, ${at}, ${at}, ${json(sql`${JOB_ITEMS}`)}, 0, '%', 0, '%', 0, null, 200`,
);
const firstJob = Number((await db.selectFrom('jobs').select((eb) => eb.fn.min('id').as('id')).where('workspace_id', '=', ws).executeTakeFirstOrThrow()).id);
// A tenth draft, a tenth cancelled, the rest sent, overdue, partly paid or paid.
await fill(
  'invoices',
  `workspace_id, name, contact_id, job_id, number, salesperson_id, date, due_date, payment_terms, status, type, event_ids, custom_fields, created_by, created_at, updated_at, ${pricing}`,
  INVOICES,
  (i) => sql`select ${ws}, 'Invoice ' || ${i}, ${firstContact} + ${i} % ${CONTACTS}, ${firstJob} + ${i} % ${JOBS}, ${i}, null,
    ${day(sql`${i} % ${DAYS}`)}, ${day(sql`${i} % ${DAYS} + 30`)}, 'net_30',
    case ${i} % 10 when 0 then 'draft' when 1 then 'cancelled' when 2 then 'sent' when 3 then 'sent' when 4 then 'overdue' when 5 then 'partially_paid' else 'paid' end,
    'one-off', ${json(sql`'[]'`)}, ${json(sql`'{}'`)}, ${owner.user_id}, ${at}, ${at}, ${json(sql`${INVOICE_ITEMS}`)}, 0, '%', 0, '%', 10, null, 385`,
);
const firstInvoice = Number((await db.selectFrom('invoices').select((eb) => eb.fn.min('id').as('id')).where('workspace_id', '=', ws).executeTakeFirstOrThrow()).id);
await fill(
  'invoice_payments',
  'workspace_id, invoice_id, amount_cents, method, paid_on, created_by, created_at',
  PAYMENTS,
  (i) => sql`select ${ws}, ${firstInvoice} + ${i} % ${INVOICES}, 1000 + ${i} % 7, 'card', ${day(sql`${i} % ${DAYS}`)}, ${owner.user_id}, ${at}`,
);
await sql`update invoices set amount_paid_cents = 10000 where workspace_id = ${ws} and status = 'partially_paid'`.execute(db);
// One timesheet per member and week, each week's status by its age; entries spread over them.
const weeks = Math.ceil(DAYS / 7) + 1;
const monday = addDays(base, -((new Date(`${base}T00:00:00Z`).getUTCDay() + 6) % 7));
await fill('timesheets', 'workspace_id, user_id, start_date, end_date, status, total_time, created_at, updated_at', weeks * MEMBERS, (i) => {
  const start = dialect === 'sqlite' ? sql`date(${monday}, '+' || ((${i} - 1) / ${MEMBERS} * 7) || ' days')` : sql`to_char(${monday}::date + ((${i} - 1) / ${MEMBERS} * 7)::int, 'YYYY-MM-DD')`;
  const end = dialect === 'sqlite' ? sql`date(${monday}, '+' || ((${i} - 1) / ${MEMBERS} * 7 + 6) || ' days')` : sql`to_char(${monday}::date + ((${i} - 1) / ${MEMBERS} * 7 + 6)::int, 'YYYY-MM-DD')`;
  const member = sql.raw(`case (i - 1) % ${MEMBERS} ${members.map((m, k) => `when ${k} then '${m}'`).join(' ')} end`);
  return sql`select ${ws}, ${member}, ${start}, ${end},
    case ${i} % 4 when 0 then 'draft' when 1 then 'pending' when 2 then 'approved' else 'rejected' end, 0, ${at}, ${at}`;
});
const firstSheet = Number((await db.selectFrom('timesheets').select((eb) => eb.fn.min('id').as('id')).where('workspace_id', '=', ws).executeTakeFirstOrThrow()).id);
const sheets = weeks * MEMBERS;
const entryDay = dialect === 'sqlite' ? sql`date(s.start_date, '+' || (i % 5) || ' days')` : sql`to_char(s.start_date::date + (i % 5), 'YYYY-MM-DD')`;
for (let from = 1; from <= ENTRIES; from += 100_000) {
  const to = Math.min(ENTRIES, from + 99_999);
  const select = sql`select ${ws}, s.id, s.user_id, ${entryDay}, ${entryDay}, 2.5, ${firstJob} + i % ${JOBS}, ${owner.user_id}, ${at}, ${at}`;
  const cols = sql.raw('workspace_id, timesheet_id, user_id, start_date, end_date, total_time, job_id, created_by, created_at, updated_at');
  if (dialect === 'sqlite') {
    await sql`insert into time_entries (${cols}) with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to})
      ${select} from n join timesheets s on s.id = ${firstSheet} + i % ${sheets}`.execute(db);
  } else {
    await sql`insert into time_entries (${cols}) ${select} from generate_series(${from}::int, ${to}::int) as n(i) join timesheets s on s.id = ${firstSheet} + i % ${sheets}`.execute(db);
  }
}
// Quotes sent over the two years; a third accepted and a sixth declined later.
await fill(
  'quotes',
  `workspace_id, number, name, contact_id, status, custom_fields, created_by, created_at, updated_at, ${pricing}`,
  QUOTES,
  (i) => sql`select ${ws}, ${i}, 'Quote ' || ${i}, ${firstContact} + ${i} % ${CONTACTS},
    case ${i} % 6 when 0 then 'accepted' when 3 then 'accepted' when 1 then 'declined' else 'awaiting_response' end,
    ${json(sql`'{}'`)}, ${owner.user_id}, ${at}, ${at}, ${json(sql`${INVOICE_ITEMS}`)}, 0, '%', 0, '%', 10, null, 385`,
);
const firstQuote = Number((await db.selectFrom('quotes').select((eb) => eb.fn.min('id').as('id')).where('workspace_id', '=', ws).executeTakeFirstOrThrow()).id);
const stamp = (offset: ReturnType<typeof sql>) => sql`${day(offset)} || 'T10:00:00.000Z'`;
await fill('quote_status_changes', 'workspace_id, quote_id, status, user_id, created_at', QUOTES, (i) => sql`select ${ws}, ${firstQuote} + ${i} - 1, 'awaiting_response', ${owner.user_id}, ${stamp(sql`${i} % ${DAYS}`)}`);
await fill(
  'quote_status_changes',
  'workspace_id, quote_id, status, user_id, created_at',
  QUOTES / 2,
  (i) => sql`select ${ws}, ${firstQuote} + ${i} * 2 - 1, case when ${i} % 3 = 2 then 'declined' else 'accepted' end, ${owner.user_id}, ${stamp(sql`(${i} * 2) % ${DAYS}`)}`,
);
if (dialect === 'postgres') await sql`vacuum (analyze)`.execute(db);
else await sql`analyze`.execute(db);
const seeded = (Date.now() - t0) / 1000;

const app = await buildApp({ config: loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }), database, logger: false });
const month = today.slice(0, 7);
const yearAgo = `${addDays(`${month}-01`, -335).slice(0, 7)}-01`;
const reports = [
  'revenue',
  'revenue?group=client',
  'revenue?group=service',
  'receivables',
  'job-costing',
  'time',
  'quotes',
];
const results: { report: string; range: string; rows: number; median: number; max: number }[] = [];
for (const [range, query] of [
  ['this month', ''],
  ['12 months', `from=${yearAgo}&to=${today}`],
] as const) {
  for (const report of reports) {
    if (report === 'receivables' && range !== 'this month') continue; // no range: aged at today
    const target = `/api/v1/reports/${report}${query ? (report.includes('?') ? '&' : '?') + query : ''}`;
    const times: number[] = [];
    let rows = 0;
    for (let r = 0; r < ROUNDS + 1; r++) {
      const start = performance.now();
      const res = await app.inject({ method: 'GET', url: target, headers: { authorization: `Bearer ${key.token}` } });
      const ms = performance.now() - start;
      if (res.statusCode !== 200) throw new Error(`${target}: ${res.statusCode} ${res.body}`);
      rows = res.json().data.length;
      if (r > 0) times.push(ms); // the first compiles the route's schemas
    }
    times.sort((a, b) => a - b);
    results.push({ report, range, rows, median: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]! });
  }
}

// The plans of the statements the reports lean on (their shapes as the repository builds them).
const explain = async (label: string, statement: string) => {
  const text = dialect === 'sqlite' ? `explain query plan ${statement}` : `explain ${statement}`;
  const { rows } = await sql.raw<Record<string, unknown>>(text).execute(db);
  const lines = rows.map((r) => String(dialect === 'sqlite' ? r.detail : r['QUERY PLAN']));
  return `${label}:\n\n${lines.map((l) => `    ${l}`).join('\n')}\n`;
};
const from = `${month}-01`;
const plans = [
  await explain('revenue: invoiced by month', `select substr(date, 1, 7), sum(cast(round(total * 100) as bigint)) from invoices where workspace_id = ${ws} and date >= '${from}' and date <= '${today}' and status not in ('draft', 'cancelled') group by substr(date, 1, 7)`),
  await explain('revenue: collected by client', `select i.contact_id, sum(p.amount_cents) from invoice_payments p join invoices i on i.id = p.invoice_id and i.workspace_id = ${ws} where p.workspace_id = ${ws} and p.paid_on >= '${from}' and p.paid_on <= '${today}' group by i.contact_id`),
  await explain('receivables', `select contact_id, sum(cast(round(total * 100) as bigint) - amount_paid_cents) from invoices where workspace_id = ${ws} and status in ('sent', 'partially_paid', 'overdue') group by contact_id`),
  await explain('job costing: hours per job and member', `select t.job_id, t.user_id, u.cost_rate_cents, sum(t.total_time) from time_entries t left join users u on u.user_id = t.user_id and u.workspace_id = ${ws} where t.workspace_id = ${ws} and t.job_id in (${firstJob}, ${firstJob + 1}) group by t.job_id, t.user_id, u.cost_rate_cents`),
  await explain('time', `select t.user_id, s.start_date, s.status, sum(t.total_time) from time_entries t join timesheets s on s.id = t.timesheet_id and s.workspace_id = ${ws} where t.workspace_id = ${ws} and t.start_date >= '${from}' and t.start_date <= '${today}' group by t.user_id, s.start_date, s.status`),
  await explain('quotes: first sent', `select c.quote_id, min(c.created_at) from quote_status_changes c where c.workspace_id = ${ws} and c.status = 'awaiting_response' and c.created_at >= '${from}' and c.created_at < '${today}T23:59:59Z' and not exists (select 1 from quote_status_changes e where e.workspace_id = ${ws} and e.quote_id = c.quote_id and e.status = 'awaiting_response' and e.created_at < c.created_at) group by c.quote_id`),
];
await app.close();

const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
const load = os.loadavg().map((x) => x.toFixed(1)).join(', ');
const table = [
  `### ${today} — reports (\`npx tsx bench/reports.ts\`), ${dialect}, commit ${commit}`,
  '',
  `${INVOICES.toLocaleString('en')} invoices, ${PAYMENTS.toLocaleString('en')} payments, ${ENTRIES.toLocaleString('en')} time entries, ${JOBS.toLocaleString('en')} jobs, ${QUOTES.toLocaleString('en')} quotes over ${DAYS} days in one workspace (seeded in ${seeded.toFixed(0)} s); ${ROUNDS} rounds per report after one warm-up; ${os.cpus().length} CPUs, load average ${load} (a machine shared with other work).`,
  '',
  '| report | range | rows | median ms | slowest ms |',
  '|---|---|---:|---:|---:|',
  ...results.map((r) => `| ${r.report} | ${r.range} | ${r.rows} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} |`),
  '',
  'Plans (this month):',
  '',
  ...plans,
].join('\n');
console.log(table);
await database.close();
process.exit(0);
