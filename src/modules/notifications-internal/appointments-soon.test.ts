import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { runDaily } from '../../outbox/schedule.ts';
import { Worker } from '../../outbox/worker.ts';
import { dailyJobs } from '../daily-jobs.ts';
import { waitFor } from '../../../test/webhook-receiver.ts';
import { setUser } from '../users/users.service.ts';
import { setWorkspace } from '../workspace/workspace.service.ts';
import { APPOINTMENTS_SOON_JOB, remindAppointmentsSoon, runAppointmentsSoon } from './appointments-soon.ts';
import { listInbox } from './internal-notifications.ts';

// D22: the daily `appointments_soon` job (runDaily + remindAppointmentsSoon), driven
// with explicit instants. The tests share one database, so each uses its own
// workspaces and its own dates far from the others'.

type Seeded = Awaited<ReturnType<typeof seedWorkspace>>;

const at = (iso: string) => Date.parse(iso);

describe('appointments_soon', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  async function workspace(timezone?: string) {
    const ws = await seedWorkspace(t.db);
    if (timezone) await setWorkspace(t.db, ws.workspace.id, { timezone });
    return { ...ws, api: client(t.app, ws.token) };
  }

  async function event(api: Client, start_date: string, start_time: string | null, assignee_ids: string[], extra: Record<string, unknown> = {}): Promise<number> {
    const res = await api.post('/api/v1/events', {
      name: `Visit ${start_date} ${start_time}`,
      type: 'appointment',
      status: 'scheduled',
      start_date,
      end_date: start_date,
      start_time,
      assignee_ids,
      ...extra,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id;
  }

  /** The event ids of a user's `appointments_soon` notifications, sorted. */
  async function reminded(ws: Seeded, userId: string): Promise<number[]> {
    const items = await listInbox(t.db, ws.workspace.id, userId);
    return items
      .filter((n) => n.name === 'appointments_soon')
      .map((n) => n.module_id!)
      .sort((a, b) => a - b);
  }

  const runs = (workspaceId: number, job = APPOINTMENTS_SOON_JOB) =>
    t.db.selectFrom('scheduled_runs').select(['run_date']).where('workspace_id', '=', workspaceId).where('job', '=', job).orderBy('run_date').execute();

  test('assignees of a scheduled appointment starting within 24 hours get one; nothing else does', async () => {
    const ws = await workspace(); // no time zone: UTC
    const [a, b, c] = [await seedUser(t.db, ws.workspace.id), await seedUser(t.db, ws.workspace.id), await seedUser(t.db, ws.workspace.id)];
    const nowMs = at('2031-03-10T12:00:00Z');
    const soon = await event(ws.api, '2031-03-11', '09:00', [a.user_id, b.user_id]);
    const startsNow = await event(ws.api, '2031-03-10', '12:00', [b.user_id]);
    const midnight = await event(ws.api, '2031-03-11', null, [b.user_id]); // no start time: 00:00
    await event(ws.api, '2031-03-11', '09:00', [c.user_id], { type: 'task' });
    await event(ws.api, '2031-03-11', '09:00', [c.user_id], { type: 'event' });
    await event(ws.api, '2031-03-11', '09:00', [c.user_id], { status: 'cancelled' });
    await event(ws.api, '2031-03-11', '09:00', [c.user_id], { status: 'completed' });
    await event(ws.api, '2031-03-10', '11:59', [c.user_id]); // already started
    await event(ws.api, '2031-03-11', '12:00', [c.user_id]); // exactly 24 hours later
    await event(ws.api, '2031-03-12', '08:00', [c.user_id]);

    assert.ok((await runAppointmentsSoon(t.db, nowMs)) >= 1);
    assert.deepEqual(await reminded(ws, a.user_id), [soon]);
    assert.deepEqual(await reminded(ws, b.user_id), [soon, startsNow, midnight].sort((x, y) => x - y));
    assert.deepEqual(await reminded(ws, c.user_id), []);
    assert.deepEqual(await reminded(ws, ws.owner.user_id), [], 'not assigned: not notified');

    const [item] = await listInbox(t.db, ws.workspace.id, a.user_id);
    assert.equal(item.module_type, 'event');
    assert.equal(item.module_id, soon);
    assert.deepEqual(item.data, { event_id: soon, name: 'Visit 2031-03-11 09:00', start_date: '2031-03-11', start_time: '09:00' });
    assert.deepEqual(await runs(ws.workspace.id), [{ run_date: '2031-03-10' }]);
  });

  test('once a day and once per event and user: a second pass does nothing; the next day only new events', async () => {
    const ws = await workspace();
    const a = await seedUser(t.db, ws.workspace.id);
    const day1 = at('2031-04-10T08:00:00Z');
    const moved = await event(ws.api, '2031-04-10', '20:00', [a.user_id]);

    assert.ok((await runAppointmentsSoon(t.db, day1)) >= 1);
    assert.deepEqual(await reminded(ws, a.user_id), [moved]);
    // Later the same day, with a new event in the window: the day's run is done.
    await event(ws.api, '2031-04-10', '22:00', [a.user_id]);
    assert.equal(await runAppointmentsSoon(t.db, day1 + 3_600_000), 0, 'no second run the same day');
    assert.deepEqual(await reminded(ws, a.user_id), [moved]);

    // The event is moved into the next day's window: still not notified twice.
    const res = await ws.api.put(`/api/v1/events/${moved}`, { start_date: '2031-04-11', end_date: '2031-04-11', start_time: '10:00' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const nextDay = await event(ws.api, '2031-04-11', '18:00', [a.user_id]);
    assert.ok((await runAppointmentsSoon(t.db, at('2031-04-11T08:00:00Z'))) >= 1);
    assert.deepEqual(await reminded(ws, a.user_id), [moved, nextDay], 'the new one only');
    assert.deepEqual(await runs(ws.workspace.id), [{ run_date: '2031-04-10' }, { run_date: '2031-04-11' }]);
  });

  test("the run date and the window follow the workspace's wall clock", async () => {
    const nz = await workspace('Pacific/Auckland');
    const la = await workspace('America/Los_Angeles');
    const n = await seedUser(t.db, nz.workspace.id);
    const l = await seedUser(t.db, la.workspace.id);
    // 2031-06-15T20:00Z is 06-16 08:00 in Auckland (NZST, +12) and 06-15 13:00 in Los Angeles (PDT, -7).
    const nowMs = at('2031-06-15T20:00:00Z');
    const nzIn = [await event(nz.api, '2031-06-16', '21:00', [n.user_id]), await event(nz.api, '2031-06-17', '07:00', [n.user_id])];
    await event(nz.api, '2031-06-16', '07:00', [n.user_id]); // started an hour ago
    await event(nz.api, '2031-06-17', '09:00', [n.user_id]); // tomorrow 09:00: 25 hours away
    const laIn = [await event(la.api, '2031-06-15', '14:00', [l.user_id]), await event(la.api, '2031-06-16', '09:00', [l.user_id])];
    await event(la.api, '2031-06-15', '12:00', [l.user_id]); // started an hour ago
    await event(la.api, '2031-06-16', '15:00', [l.user_id]); // 26 hours away

    await runAppointmentsSoon(t.db, nowMs);
    assert.deepEqual(await runs(nz.workspace.id), [{ run_date: '2031-06-16' }]);
    assert.deepEqual(await runs(la.workspace.id), [{ run_date: '2031-06-15' }]);
    assert.deepEqual(await reminded(nz, n.user_id), nzIn);
    assert.deepEqual(await reminded(la, l.user_id), laIn);

    // Los Angeles' next day starts at 07:00Z, while Auckland's 06-16 lasts until 12:00Z.
    await runAppointmentsSoon(t.db, at('2031-06-16T07:30:00Z'));
    assert.deepEqual(await runs(la.workspace.id), [{ run_date: '2031-06-15' }, { run_date: '2031-06-16' }]);
    assert.deepEqual(await runs(nz.workspace.id), [{ run_date: '2031-06-16' }]);
    await runAppointmentsSoon(t.db, at('2031-06-16T12:30:00Z'));
    assert.deepEqual(await runs(nz.workspace.id), [{ run_date: '2031-06-16' }, { run_date: '2031-06-17' }]);
  });

  test("the user's notify.appointments_soon and the workspace's internal.appointments_soon are respected", async () => {
    const ws = await workspace();
    const [off, on] = [await seedUser(t.db, ws.workspace.id), await seedUser(t.db, ws.workspace.id)];
    await setUser(t.db, ws.workspace.id, off.user_id, { 'notify.appointments_soon': 'false' });
    const quiet = await workspace();
    const q = await seedUser(t.db, quiet.workspace.id);
    await setWorkspace(t.db, quiet.workspace.id, { 'internal.appointments_soon': 'false' });
    const e = await event(ws.api, '2031-08-02', '10:00', [off.user_id, on.user_id]);
    await event(quiet.api, '2031-08-02', '10:00', [q.user_id]);

    await runAppointmentsSoon(t.db, at('2031-08-01T12:00:00Z'));
    assert.deepEqual(await reminded(ws, on.user_id), [e]);
    assert.deepEqual(await reminded(ws, off.user_id), []);
    assert.deepEqual(await reminded(quiet, q.user_id), []);
    assert.equal((await runs(quiet.workspace.id)).length, 1, 'the run itself happened');
  });

  test('concurrent passes (several workers): one run per workspace, one notification per event and user', async () => {
    const spaces = [await workspace(), await workspace('Pacific/Auckland'), await workspace('America/Los_Angeles')];
    const expected: { ws: Seeded; user: string; events: number[] }[] = [];
    for (const ws of spaces) {
      const users = [await seedUser(t.db, ws.workspace.id), await seedUser(t.db, ws.workspace.id)];
      const ids = [
        await event(ws.api, '2031-10-05', '10:00', [users[0].user_id, users[1].user_id]),
        await event(ws.api, '2031-10-05', '11:00', [users[0].user_id]),
      ];
      expected.push({ ws, user: users[0].user_id, events: ids }, { ws, user: users[1].user_id, events: [ids[0]] });
    }
    const before = await t.db.selectFrom('scheduled_runs').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    // 2031-10-04T20:00Z: Auckland (NZDT, +13) 10-05 09:00, Los Angeles (PDT, -7) 10-04 13:00; every event is within 24 hours.
    const passes = await Promise.all(Array.from({ length: 5 }, () => runAppointmentsSoon(t.db, at('2031-10-04T20:00:00Z'))));
    const afterRuns = await t.db.selectFrom('scheduled_runs').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(
      passes.reduce((s, n) => s + n, 0),
      Number(afterRuns.n) - Number(before.n),
      'every run reported is one row',
    );
    for (const ws of spaces) assert.equal((await runs(ws.workspace.id)).length, 1, `one run for workspace ${ws.workspace.id}`);
    for (const { ws, user, events } of expected) assert.deepEqual(await reminded(ws, user), events);
  });

  test("a failing run rolls back (no run row, no reminders) and does not stop the other workspaces'", async () => {
    const bad = await workspace();
    const good = await workspace();
    const [b, g] = [await seedUser(t.db, bad.workspace.id), await seedUser(t.db, good.workspace.id)];
    const badEvent = await event(bad.api, '2031-12-02', '09:00', [b.user_id]);
    const goodEvent = await event(good.api, '2031-12-02', '09:00', [g.user_id]);
    const nowMs = at('2031-12-01T10:00:00Z');
    const errors: object[] = [];
    const ran = await runDaily(
      t.db,
      APPOINTMENTS_SOON_JOB,
      nowMs,
      async (trx, w, d) => {
        await remindAppointmentsSoon(trx, w, d, nowMs);
        if (w.id === bad.workspace.id) throw new Error('boom');
      },
      { error: (obj) => errors.push(obj) },
    );
    assert.ok(ran >= 1);
    assert.equal(errors.length, 1);
    assert.equal((errors[0] as { workspace_id: number }).workspace_id, bad.workspace.id);
    assert.deepEqual(await runs(bad.workspace.id), [], 'the run row was rolled back');
    assert.deepEqual(await reminded(bad, b.user_id), [], 'so were its notifications');
    const reminders = await t.db.selectFrom('appointment_reminders').select('event_id').where('workspace_id', '=', bad.workspace.id).execute();
    assert.deepEqual(reminders, []);
    assert.deepEqual(await runs(good.workspace.id), [{ run_date: '2031-12-01' }]);
    assert.deepEqual(await reminded(good, g.user_id), [goodEvent]);

    // A later pass the same day runs it.
    assert.equal(await runAppointmentsSoon(t.db, nowMs + 60_000), 1);
    assert.deepEqual(await runs(bad.workspace.id), [{ run_date: '2031-12-01' }]);
    assert.deepEqual(await reminded(bad, b.user_id), [badEvent]);
    assert.deepEqual(await reminded(good, g.user_id), [goodEvent]);
  });

  // Last: it runs on the real clock, so the worker's pass also takes today's run of
  // the other tests' workspaces (their events are years away).
  test("the worker's loop runs the job; a restarted worker does not run it again the same day", async () => {
    const ws = await workspace(); // UTC
    const user = await seedUser(t.db, ws.workspace.id);
    const start = new Date(Date.now() + 2 * 3_600_000).toISOString(); // in two hours, UTC wall clock
    const id = await event(ws.api, start.slice(0, 10), start.slice(11, 16), [user.user_id]);
    const worker = () => new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20, scheduleMs: 50, daily: dailyJobs });
    const first = worker();
    first.start();
    await waitFor('the reminder', async () => (await reminded(ws, user.user_id)).length > 0);
    await first.stop();
    const second = worker(); // a restart: a new process would be the same
    second.start();
    await new Promise((r) => setTimeout(r, 300)); // several scheduled passes
    await second.stop();
    assert.deepEqual(await reminded(ws, user.user_id), [id]);
    assert.equal((await runs(ws.workspace.id)).length, 1);
  });
});
