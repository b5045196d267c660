import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SQLite } from '../src/db/sqlite-driver.ts';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { runDocumentsDaily, runDocumentsDay } from '../src/modules/lifecycle/daily-run.ts';
import { addDays } from '../src/domain/recurrence.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { BULK_ROWS } from '../src/db/database.ts';
import { buildTestApp, type Client, client, copyRows, outboxEvents, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';

// EXTENSIONS E5: the daily run of invoices and quotes, and `fieldwork daily`.
describe('the daily document run (E5)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /** A workspace with one document in each interesting state relative to `day` (2030-06-15). */
  async function seeded() {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'L', email: 'ada@example.test' })).body.data.id;
    const mute = (await api.post('/api/v1/contacts', { first_name: 'No', last_name: 'Mail' })).body.data.id;
    const inv = async (body: Record<string, unknown>) =>
      (await api.post('/api/v1/invoices', { contact_id: contact, line_items: [{ name: 'W', unitPrice: 50, quantity: 1 }], ...body })).body.data.id as number;
    const quote = async (body: Record<string, unknown>) => (await api.post('/api/v1/quotes', { contact_id: contact, ...body })).body.data.id as number;
    const ids = {
      sentPast: await inv({ status: 'sent', due_date: '2030-06-14' }),
      sentToday: await inv({ status: 'sent', due_date: '2030-06-15' }),
      partialPast: await inv({ status: 'sent', due_date: '2030-06-01' }),
      paidPast: await inv({ status: 'paid', due_date: '2030-06-01' }),
      draftPast: await inv({ status: 'draft', due_date: '2030-06-01' }),
      sentNoDue: await inv({ status: 'sent' }),
      scheduledToday: await inv({ status: 'scheduled', send_on: '2030-06-15', due_date: '2030-07-15' }),
      scheduledPast: await inv({ status: 'scheduled', send_on: '2030-06-01', due_date: '2030-06-10' }),
      scheduledLater: await inv({ status: 'scheduled', send_on: '2030-06-16' }),
      scheduledNoEmail: await inv({ status: 'scheduled', send_on: '2030-06-15', contact_id: mute }),
      quotePast: await quote({ status: 'awaiting_response', expire_on: '2030-06-14' }),
      quoteToday: await quote({ status: 'awaiting_response', expire_on: '2030-06-15' }),
      quoteDraftPast: await quote({ status: 'draft', expire_on: '2030-06-01' }),
    };
    await api.post(`/api/v1/invoices/${ids.partialPast}/payments`, { amount: 10 });
    return { ws, api, ids };
  }

  const statusOf = async (api: Client, path: string, id: number) => (await api.get(`/api/v1/${path}/${id}`)).body.data.status as string;

  test('moves what is due, sends scheduled invoices as invoice_to_customer, and a second run changes nothing', async () => {
    const { ws, api, ids } = await seeded();
    const other = await seeded(); // another workspace: untouched by this one's run
    const result = await t.db.transaction().execute((trx) => runDocumentsDay(trx, ws.workspace.id, '2030-06-15', t.config));
    assert.deepEqual(result, {
      // the past-due scheduled invoice is sent, then overdue on the same run
      overdue_invoices: [ids.sentPast, ids.partialPast, ids.scheduledPast].sort((a, b) => a - b),
      expired_quotes: [ids.quotePast],
      sent_invoices: [ids.scheduledToday, ids.scheduledPast],
    });
    for (const [id, status] of [
      [ids.sentPast, 'overdue'],
      [ids.sentToday, 'sent'],
      [ids.partialPast, 'overdue'],
      [ids.paidPast, 'paid'],
      [ids.draftPast, 'draft'],
      [ids.sentNoDue, 'sent'],
      [ids.scheduledToday, 'sent'],
      [ids.scheduledLater, 'scheduled'],
      [ids.scheduledNoEmail, 'scheduled'],
    ] as const)
      assert.equal(await statusOf(api, 'invoices', id), status, `invoice ${id}`);
    assert.equal(await statusOf(api, 'quotes', ids.quotePast), 'expired');
    assert.equal(await statusOf(api, 'quotes', ids.quoteToday), 'awaiting_response');
    assert.equal(await statusOf(api, 'quotes', ids.quoteDraftPast), 'draft');
    const changes = (await api.get(`/api/v1/quotes/${ids.quotePast}`)).body.data.status_changes;
    assert.deepEqual(changes.at(-1).status, 'expired', 'kept in the status history');

    const messages = await t.db.selectFrom('messages').select(['type', 'module_id']).where('workspace_id', '=', ws.workspace.id).orderBy('id').execute();
    assert.deepEqual(messages, [
      { type: 'invoice_to_customer', module_id: ids.scheduledToday },
      { type: 'invoice_to_customer', module_id: ids.scheduledPast },
    ]);
    const sentEvents = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'invoice_sent').map((e) => e.data.id);
    assert.ok(sentEvents.includes(ids.scheduledToday), 'D16: invoice_sent on entering sent');

    const again = await t.db.transaction().execute((trx) => runDocumentsDay(trx, ws.workspace.id, '2030-06-15', t.config));
    assert.deepEqual(again, { overdue_invoices: [], expired_quotes: [], sent_invoices: [] });
    assert.equal((await t.db.selectFrom('messages').select('id').where('workspace_id', '=', ws.workspace.id).execute()).length, 2, 'no second send');
    assert.equal(await statusOf(other.api, 'invoices', other.ids.sentPast), 'sent', "another workspace's run is its own");
  });

  test('12,000 due invoices and 12,000 expired quotes move in a few set-based statements', async () => {
    // Set-based (E5): the moves are one statement each; E14's events (each record's
    // detail read and its outbox row) go BULK_ROWS at a time, so no statement passes
    // SQLite's 32,766 parameters and the count grows by 4 per 5,000 rows, not per row.
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const items = [{ name: 'Visit', quantity: 1, unitPrice: 120 }];
    const invoice = (await api.post('/api/v1/invoices', { status: 'sent', date: '2030-01-01', due_date: '2030-01-31', line_items: items })).body.data.id;
    const quote = (await api.post('/api/v1/quotes', { status: 'awaiting_response', expire_on: '2030-01-31', line_items: items })).body.data.id;
    await copyRows(t.db, t.database.dialect, 'invoices', invoice, 12_000);
    await copyRows(t.db, t.database.dialect, 'quotes', quote, 12_000);
    t.queries.length = 0;
    const result = await t.db.transaction().execute((trx) => runDocumentsDay(trx, ws.workspace.id, '2030-06-01', t.config));
    assert.equal(result.overdue_invoices.length, 12_000);
    assert.equal(result.expired_quotes.length, 12_000);
    assert.ok(t.queries.length <= 8 + 4 * Math.ceil(12_000 / BULK_ROWS), `${t.queries.length} statements`);
    const expired = await t.db.selectFrom('quotes').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', ws.workspace.id).where('status', '=', 'expired').executeTakeFirstOrThrow();
    assert.equal(Number(expired.n), 12_000);
  });

  test('a run killed mid-way (SIGKILL) left all or nothing; the rerun finishes it and does nothing twice', async () => {
    // The run is one transaction with its run row: a kill at any moment leaves all of it or none.
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const items = [{ name: 'Visit', quantity: 1, unitPrice: 120 }];
    const invoice = (await api.post('/api/v1/invoices', { status: 'sent', date: '2030-01-01', due_date: '2030-01-31', line_items: items })).body.data.id;
    await copyRows(t.db, t.database.dialect, 'invoices', invoice, 12_000);
    const overdue = async () =>
      Number((await t.db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', ws.workspace.id).where('status', '=', 'overdue').executeTakeFirstOrThrow()).n);
    const updatedEvents = async () => (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'invoice_updated').length;
    const before = await updatedEvents();

    const root = path.resolve(import.meta.dirname, '..');
    const child = spawn(process.execPath, [path.join(root, 'bin', 'fieldwork.js'), 'daily', '--workspace', String(ws.workspace.id), '--date', '2030-06-01', '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: t.url },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Kill it while its transaction is open when we can see one (SQLite: its write lock;
    // PostgreSQL: its session inside a transaction), else when it has run for a while.
    const inTransaction = async () => {
      if (t.database.dialect === 'postgres') {
        const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null`.execute(t.db);
        return r.rows[0].n > 0;
      }
      const probe = new SQLite(t.url.slice('sqlite:'.length), { timeout: 0 });
      try {
        probe.exec('begin immediate; rollback');
        return false;
      } catch {
        return true;
      } finally {
        probe.close();
      }
    };
    const started = Date.now();
    while (child.exitCode === null && Date.now() - started < 20_000 && !(await inTransaction())) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    await exited;
    const atKill = await overdue();
    assert.ok(atKill === 0 || atKill === 12_000, `all or nothing, not ${atKill}`);
    assert.equal(await updatedEvents(), before + atKill, 'the events went with the moves');

    const rerun = await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--date', '2030-06-01', '--json']);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal(JSON.parse(rerun.stdout).overdue_invoices.length, 12_000 - atKill, 'the rerun moves what the killed run did not');
    assert.equal(await overdue(), 12_000);
    assert.equal(await updatedEvents(), before + 12_000, 'one invoice_updated per invoice, none twice');
  });

  test('the worker job runs each workspace once per local day', async () => {
    const { ws, api, ids } = await seeded();
    // A clock at which the workspace's local date is after every due date above.
    const nowMs = Date.parse('2030-07-20T12:00:00Z');
    assert.ok((await runDocumentsDaily(t.db, nowMs, undefined, t.config)) >= 1);
    assert.equal(await statusOf(api, 'invoices', ids.sentPast), 'overdue');
    assert.equal(await statusOf(api, 'invoices', ids.scheduledLater), 'sent', 'send_on 2030-06-16 <= 2030-07-20');
    const runs = await t.db.selectFrom('scheduled_runs').selectAll().where('workspace_id', '=', ws.workspace.id).where('job', '=', 'documents_daily').execute();
    assert.deepEqual(runs.map((r) => r.run_date), [zonedDate(nowMs, null)]);
    // Made due after the run: not touched again until the next local day.
    assert.equal(await statusOf(api, 'invoices', ids.sentNoDue), 'sent');
    await api.put(`/api/v1/invoices/${ids.sentNoDue}`, { due_date: '2030-01-01' });
    assert.equal(await runDocumentsDaily(t.db, nowMs + 60_000, undefined, t.config), 0);
    assert.equal(await statusOf(api, 'invoices', ids.sentNoDue), 'sent');
    assert.ok((await runDocumentsDaily(t.db, nowMs + 86_400_000, undefined, t.config)) >= 1);
    assert.equal(await statusOf(api, 'invoices', ids.sentNoDue), 'overdue');
  });

  test('fieldwork daily --workspace ID --date --json prints the ids it changed; twice changes nothing', async () => {
    const { ws, ids } = await seeded();
    const run = async (args: string[]) => {
      const r = await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), ...args, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const first = await run(['--date', '2030-06-15']);
    assert.deepEqual(first.expired_quotes, [ids.quotePast]);
    assert.deepEqual(first.sent_invoices, [ids.scheduledToday, ids.scheduledPast]);
    assert.equal(first.overdue_invoices.length, 3);
    assert.deepEqual(await run(['--date', '2030-06-15']), { overdue_invoices: [], expired_quotes: [], sent_invoices: [], reminders_sent: [], visits_created: 0 });
    const bad = await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--date', '2030-02-30', '--json']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /YYYY-MM-DD/);
    const missing = await spawnCli(t.url, ['daily', '--workspace', '2000000000', '--json']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /workspace 2000000000 not found/);
    const today = await run([]); // today: nothing above is due before 2030
    assert.deepEqual(today, { overdue_invoices: [], expired_quotes: [], sent_invoices: [], reminders_sent: [], visits_created: 0 });
  });

  test('fieldwork daily --json reports the visits it made for recurring jobs (E20); twice makes none', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const today = zonedDate(Date.now(), null);
    const schedule = { rrule: 'FREQ=DAILY', starts_on: today, start_time: '08:00', end_time: '09:00' };
    const jobs = await Promise.all([1, 2].map((n) => api.post('/api/v1/jobs', { name: `Route ${n}`, type: 'recurring', schedule })));
    for (const j of jobs) assert.equal(j.status, 201, JSON.stringify(j.body));
    // As if the series had been made ten days ago: the run makes the ten days since.
    const through = addDays(today, 365 - 10);
    await t.db.updateTable('jobs').set({ generated_through: through }).where('workspace_id', '=', ws.workspace.id).execute();
    await t.db.deleteFrom('events').where('workspace_id', '=', ws.workspace.id).where('occurrence_date', '>', through).execute();
    const run = async () => {
      const r = await spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    assert.equal((await run()).visits_created, 20);
    assert.equal((await run()).visits_created, 0);
    const visits = await t.db.selectFrom('events').select(['job_id', 'occurrence_date']).where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(visits.length, 2 * 366);
    assert.equal(new Set(visits.map((v) => `${v.job_id}/${v.occurrence_date}`)).size, visits.length);
  });
});
