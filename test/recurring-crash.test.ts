import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { SQLite } from '../src/db/sqlite-driver.ts';
import { addDays } from '../src/domain/recurrence.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { killAll, type Proc, startServer } from './processes.ts';

// E21 as one transaction: a server killed (SIGKILL) in the middle of a series
// update leaves the old series or the new one, never a mix of both, and the
// update done again afterwards gives the new series once.

describe('a series update killed mid-way', { timeout: 180_000 }, () => {
  let t: TestApp;
  const procs: Proc[] = [];
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await killAll(procs);
    await t.close();
  });

  /** Whether another connection is inside a write transaction now (SQLite: holds the write lock; PostgreSQL: a session in a transaction). */
  async function writing(): Promise<boolean> {
    if (t.database.dialect === 'postgres') {
      const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null and state <> 'idle'`.execute(t.db);
      return (r.rows[0]?.n ?? 0) > 0;
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
  }

  test('SIGKILL during PUT /jobs/:id with a new rule: the old series or the new one, never a mix', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const today = zonedDate(Date.now(), null);
    const from = addDays(today, 1);
    const schedule = (rrule: string) => ({ rrule, starts_on: today, start_time: '07:00', end_time: '08:00', effective_from: from });
    // Daily against every other day: each update deletes and makes half a year of visits or more.
    const rules = { 'FREQ=DAILY': seriesOf(today, from, 1), 'FREQ=DAILY;INTERVAL=2': seriesOf(today, from, 2) } as Record<string, string>;
    const job = (await api.post('/api/v1/jobs', { name: 'Route', type: 'recurring', schedule: schedule('FREQ=DAILY') })).body.data;
    let current = 'FREQ=DAILY';
    assert.equal((await visitDates(job.id)).join(), rules[current]);
    const seen: string[] = [];
    // Killed at several moments of the update's transaction: each leaves one whole series.
    for (const share of [0, 0.2, 0.4, 0.6, 0.8]) {
      const server = await startServer({ DATABASE_URL: t.url, WORKER: 'off' });
      procs.push(server);
      // Warm: the same rule again (the same series), so the process has compiled the route and loaded the rule library before the update timed below.
      const warmStart = Date.now();
      const warm = await fetch(`${server.address}/api/v1/jobs/${job.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ schedule: schedule(current) }),
      });
      assert.equal(warm.status, 200);
      const tookMs = Date.now() - warmStart;
      assert.equal((await visitDates(job.id)).join(), rules[current]);
      const next = current === 'FREQ=DAILY' ? 'FREQ=DAILY;INTERVAL=2' : 'FREQ=DAILY';
      const put = fetch(`${server.address}/api/v1/jobs/${job.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ schedule: schedule(next) }),
      }).catch(() => null);
      // Killed once its transaction is open, then at a share of what the same update took just before.
      const started = Date.now();
      while (server.child.exitCode === null && Date.now() - started < 10_000 && !(await writing())) await new Promise((r) => setTimeout(r, 1));
      const delayMs = Math.round(share * tookMs);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      server.child.kill('SIGKILL');
      await server.exited;
      await put;
      const dates = (await visitDates(job.id)).join();
      const state = dates === rules[current] ? 'old' : dates === rules[next] ? 'new' : 'mix';
      assert.notEqual(state, 'mix', `killed ${share * 100}% into the update: a mix of both series`);
      // The job's row moved with its visits, or neither did.
      assert.equal((await api.get(`/api/v1/jobs/${job.id}`)).body.data.schedule.rrule, state === 'old' ? current : next);
      seen.push(`${state} (${delayMs} of ${tookMs} ms)`);
      if (state === 'new') current = next;
    }
    console.error(`series after each kill: ${seen.join(', ')}`);

    // Done again through this process: the other series, one visit per date.
    const other = current === 'FREQ=DAILY' ? 'FREQ=DAILY;INTERVAL=2' : 'FREQ=DAILY';
    const again = await api.put(`/api/v1/jobs/${job.id}`, { schedule: schedule(other) });
    assert.equal(again.status, 200);
    assert.equal((await visitDates(job.id)).join(), rules[other]);
  });

  async function visitDates(jobId: number): Promise<string[]> {
    const rows = await t.db.selectFrom('events').select('occurrence_date').where('job_id', '=', jobId).orderBy('occurrence_date').execute();
    return rows.map((r) => r.occurrence_date as string);
  }
  /** The series' dates: `today`, then every `step` days from `from` through the horizon (365 days from today). */
  function seriesOf(today: string, from: string, step: number): string {
    const out = [today];
    for (let d = step; d <= 365; d += step) if (addDays(today, d) >= from) out.push(addDays(today, d));
    return out.join();
  }
});
