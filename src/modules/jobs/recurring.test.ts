import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, outboxEvents, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { addDays, expandRule, parseRule } from '../../domain/recurrence.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { runRecurringDay } from './recurring-daily.ts';

// E20/E21 over the API on the database under test. "Today" is the real one in the
// workspace's timezone (America/New_York), as the server computes it.
const ZONE = 'America/New_York';

type Visit = { id: number; start_date: string; occurrence_date: string | null; detached: boolean; status: string; [k: string]: unknown };

describe('recurring jobs', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let userId: string;
  let today: string;
  let horizon: string;

  const outbox = () => outboxEvents(t.db, ws.workspace.id);
  /** Every event of the job, by date then id (paged through the API). */
  async function visitsOf(jobId: number): Promise<Visit[]> {
    const rows = await t.db.selectFrom('events').select('id').where('workspace_id', '=', ws.workspace.id).where('job_id', '=', jobId).orderBy('start_date').orderBy('id').execute();
    const out: Visit[] = [];
    for (let page = 1; ; page++) {
      const res = await api.get(`/api/v1/events?job_id=${jobId}&per_page=100&page=${page}&sort_by=start_date&sort_order=asc`);
      assert.equal(res.status, 200);
      out.push(...res.body.data);
      if (page >= res.body.pagination.total_pages) break;
    }
    assert.equal(out.length, rows.length);
    return out.sort((a, b) => (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id - b.id));
  }
  const expected = (rrule: string, startsOn: string, from: string, through = horizon) => {
    const parsed = parseRule(rrule);
    assert.ok(parsed.ok);
    return expandRule(parsed.rule, startsOn, from, through, { timeZone: ZONE }).dates;
  };
  const jobCount = async () => Number((await t.db.selectFrom('jobs').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', ws.workspace.id).executeTakeFirstOrThrow()).n);
  const eventCount = async () => Number((await t.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', ws.workspace.id).executeTakeFirstOrThrow()).n);
  const weekly = (extra: Record<string, unknown> = {}) => ({
    rrule: 'FREQ=WEEKLY;BYDAY=TU',
    starts_on: today,
    start_time: '09:00',
    end_time: '10:30',
    assignee_ids: [userId],
    ...extra,
  });

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    await t.db.updateTable('workspaces').set({ timezone: ZONE }).where('id', '=', ws.workspace.id).execute();
    api = client(t.app, ws.token);
    userId = (await seedUser(t.db, ws.workspace.id)).user_id;
    today = zonedDate(Date.now(), ZONE);
    horizon = addDays(today, 365);
  });
  after(() => t.close());

  test('create: a year of visits in the same write, each an appointment with the rule date, new_event once each', async () => {
    const before = (await outbox()).length;
    const res = await api.post('/api/v1/jobs', { name: 'Lawn', type: 'recurring', status: 'scheduled', schedule: weekly() });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const job = res.body.data;
    const dates = expected('FREQ=WEEKLY;BYDAY=TU', today, today);
    assert.ok(dates.length >= 52 && dates.length <= 53);
    assert.deepEqual(res.body.meta, { visits_created: dates.length, visits_deleted: 0 });
    const s = job.schedule;
    assert.deepEqual(
      [s.rrule, s.starts_on, s.start_time, s.end_time, s.all_day, s.assignee_ids, s.skipped_dates, s.description, s.next_visit_on, s.generated_through],
      ['FREQ=WEEKLY;BYDAY=TU', today, '09:00', '10:30', false, [userId], [], 'Weekly on Tuesday', dates[0], horizon],
    );
    assert.equal(job.invoicing, 'manual');
    assert.deepEqual((await api.get(`/api/v1/jobs/${job.id}`)).body.data, job);
    const listed = (await api.get('/api/v1/jobs')).body.data.find((j: { id: number }) => j.id === job.id);
    assert.deepEqual(listed.schedule, job.schedule);

    const visits = await visitsOf(job.id);
    assert.deepEqual(visits.map((v) => v.start_date), dates);
    for (const v of visits) {
      assert.deepEqual(
        [v.type, v.name, v.job_id, v.end_date, v.start_time, v.end_time, v.all_day, v.status, v.occurrence_date, v.detached, v.assignee_ids],
        ['appointment', 'Lawn', job.id, v.start_date, '09:00', '10:30', false, 'scheduled', v.start_date, false, [userId]],
      );
    }
    const events = (await outbox()).slice(before);
    const made = events.filter((e) => e.event === 'new_event');
    assert.equal(made.length, dates.length);
    assert.deepEqual(new Set(made.map((e) => e.data.id)), new Set(visits.map((v) => v.id)));
    assert.deepEqual(made[0]?.data, (await api.get(`/api/v1/events/${made[0]?.data.id}`)).body.data);
    assert.equal(events.filter((e) => e.event === 'new_job').length, 1);
  });

  test('an event no rule made has occurrence_date null and detached false', async () => {
    const res = await api.post('/api/v1/events', { name: 'Call', start_date: today, end_date: today });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.data.occurrence_date, res.body.data.detached], [null, false]);
  });

  test('refusals: 400 naming the field, nothing written', async () => {
    const jobs = await jobCount();
    const events = await eventCount();
    const cases: [body: Record<string, unknown>, path: (string | number)[], message?: RegExp][] = [
      [{ type: 'one-off', schedule: weekly() }, ['schedule'], /recurring/],
      [{ schedule: weekly() }, ['schedule'], /recurring/],
      [{ type: 'one-off', invoicing: 'per_visit' }, ['invoicing'], /recurring/],
      [{ invoicing: 'monthly' }, ['invoicing']],
      [{ type: 'recurring', invoicing: 'weekly' }, ['invoicing']],
      [{ type: 'recurring', schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=XX' }) }, ['schedule', 'rrule'], /^BYDAY: "XX" is not a weekday/],
      [{ type: 'recurring', schedule: weekly({ rrule: 'FREQ=WEEKLY;COUNT=2;UNTIL=20300101' }) }, ['schedule', 'rrule'], /COUNT and UNTIL/],
      [{ type: 'recurring', schedule: weekly({ rrule: 'FREQ=MINUTELY' }) }, ['schedule', 'rrule'], /^FREQ/],
      [{ type: 'recurring', schedule: weekly({ rrule: '' }) }, ['schedule', 'rrule']],
      [{ type: 'recurring', schedule: weekly({ starts_on: '2026-02-30' }) }, ['schedule', 'starts_on']],
      [{ type: 'recurring', schedule: weekly({ starts_on: 'tomorrow' }) }, ['schedule', 'starts_on']],
      [{ type: 'recurring', schedule: weekly({ start_time: '25:00' }) }, ['schedule', 'start_time']],
      [{ type: 'recurring', schedule: weekly({ end_time: '9:00' }) }, ['schedule', 'end_time']],
      [{ type: 'recurring', schedule: weekly({ end_time: '08:00' }) }, ['schedule', 'end_time'], /after start_time/],
      [{ type: 'recurring', schedule: weekly({ start_time: undefined }) }, ['schedule', 'start_time'], /all_day/],
      [{ type: 'recurring', schedule: weekly({ assignee_ids: ['00000000-0000-4000-8000-000000000000'] }) }, ['schedule', 'assignee_ids', 0]],
      [{ type: 'recurring', schedule: weekly({ skipped_dates: ['2026-13-01'] }) }, ['schedule', 'skipped_dates', 0]],
      [{ type: 'recurring', schedule: weekly({ effective_from: '20260101' }) }, ['schedule', 'effective_from']],
      [{ type: 'recurring', schedule: { rrule: 'FREQ=DAILY', start_time: '09:00', end_time: '10:00' } }, ['schedule', 'starts_on']],
      // Daily from five years ago through the horizon: more than 1,000 visits.
      [{ type: 'recurring', schedule: weekly({ rrule: 'FREQ=DAILY', starts_on: addDays(today, -5 * 365) }) }, ['schedule', 'rrule'], /more than 1,000 visits/],
    ];
    for (const [body, path, message] of cases) {
      const res = await api.post('/api/v1/jobs', { name: 'Bad', ...body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      const detail = res.body.details.find((d: { path: (string | number)[] }) => JSON.stringify(d.path) === JSON.stringify(path));
      assert.ok(detail, `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`);
      if (message) assert.match(detail.message, message);
    }
    assert.equal(await jobCount(), jobs);
    assert.equal(await eventCount(), events);
  });

  test('invoicing: stored and returned; per_visit on a recurring job; a PUT to one-off keeping it is refused', async () => {
    const res = await api.post('/api/v1/jobs', { name: 'Pool', type: 'recurring', invoicing: 'per_visit' });
    assert.equal(res.status, 201);
    assert.deepEqual([res.body.data.invoicing, res.body.data.schedule, res.body.meta], ['per_visit', null, { visits_created: 0, visits_deleted: 0 }]);
    const bad = await api.put(`/api/v1/jobs/${res.body.data.id}`, { type: 'one-off' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details[0].path, ['invoicing']);
    const ok = await api.put(`/api/v1/jobs/${res.body.data.id}`, { type: 'one-off', invoicing: 'manual' });
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.data.type, ok.body.data.invoicing], ['one-off', 'manual']);
  });

  test('E21: a new rule from effective_from replaces only scheduled, undetached visits on or after it', async () => {
    const created = await api.post('/api/v1/jobs', { name: 'Clean', type: 'recurring', schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=MO' }) });
    const job = created.body.data;
    const visits = await visitsOf(job.id);
    const [, , started, done, moved, ...rest] = visits;
    assert.ok(started && done && moved && rest.length > 10);
    assert.equal((await api.put(`/api/v1/events/${started.id}/status`, { status: 'in_progress' })).status, 200);
    assert.equal((await api.put(`/api/v1/events/${done.id}/status`, { status: 'completed' })).status, 200);
    // Moved by hand: detached, keeps its occurrence_date.
    const m = await api.put(`/api/v1/events/${moved.id}`, { start_date: addDays(moved.start_date, 1), end_date: addDays(moved.start_date, 1) });
    assert.deepEqual([m.body.data.detached, m.body.data.occurrence_date], [true, moved.start_date]);
    // A status change alone does not detach.
    assert.equal((await api.put(`/api/v1/events/${started.id}`, { status: 'in_progress' })).body.data.detached, false);

    const from = visits[1]?.start_date as string;
    const before = (await outbox()).length;
    const res = await api.put(`/api/v1/jobs/${job.id}`, { schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=WE', effective_from: from }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const replaced = visits.slice(1).filter((v) => ![started.id, done.id, moved.id].includes(v.id));
    const wednesdays = expected('FREQ=WEEKLY;BYDAY=WE', today, from);
    assert.deepEqual(res.body.meta, { visits_deleted: replaced.length, visits_created: wednesdays.length });
    const after = await visitsOf(job.id);
    const byId = new Map(after.map((v) => [v.id, v]));
    for (const kept of [visits[0], started, done, moved]) assert.ok(byId.has(kept!.id), `kept ${kept!.start_date}`);
    assert.equal(byId.get(moved.id)?.start_date, addDays(moved.start_date, 1));
    assert.deepEqual(after.filter((v) => !v.detached && v.status === 'scheduled' && v.start_date >= from).map((v) => v.start_date), wednesdays);
    const events = (await outbox()).slice(before);
    assert.equal(events.filter((e) => e.event === 'event_deleted').length, replaced.length);
    assert.equal(events.filter((e) => e.event === 'new_event').length, wednesdays.length);
    assert.equal(events.filter((e) => e.event === 'job_updated').length, 1);
    assert.equal(res.body.data.schedule.description, 'Weekly on Wednesday');

    // Back to Mondays from the same date: the detached, started and completed visits' dates are not made again.
    const back = await api.put(`/api/v1/jobs/${job.id}`, { schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=MO', effective_from: from }) });
    assert.equal(back.status, 200);
    const mondays = await visitsOf(job.id);
    const perDate = new Map<string, number>();
    for (const v of mondays) perDate.set(v.occurrence_date as string, (perDate.get(v.occurrence_date as string) ?? 0) + 1);
    assert.ok([...perDate.values()].every((n) => n === 1), 'one visit per occurrence date');
    assert.ok(mondays.some((v) => v.id === moved.id && v.detached));
  });

  test('E21: deleting a visit skips its date for good; skipped_dates: [] clears the list', async () => {
    const job = (await api.post('/api/v1/jobs', { name: 'Pest', type: 'recurring', schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=FR' }) })).body.data;
    const visits = await visitsOf(job.id);
    const gone = visits[2] as Visit;
    const before = (await outbox()).length;
    assert.equal((await api.delete(`/api/v1/events/${gone.id}`)).status, 200);
    const read = (await api.get(`/api/v1/jobs/${job.id}`)).body.data;
    assert.deepEqual(read.schedule.skipped_dates, [gone.occurrence_date]);
    const events = (await outbox()).slice(before);
    assert.deepEqual(events.map((e) => e.event), ['event_deleted', 'job_updated']);
    // The same rule again from today: the date stays skipped.
    const again = await api.put(`/api/v1/jobs/${job.id}`, { schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=FR' }) });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data.schedule.skipped_dates, [gone.occurrence_date]);
    assert.ok(!(await visitsOf(job.id)).some((v) => v.occurrence_date === gone.occurrence_date));
    const cleared = await api.put(`/api/v1/jobs/${job.id}`, { schedule: weekly({ rrule: 'FREQ=WEEKLY;BYDAY=FR', skipped_dates: [] }) });
    assert.deepEqual(cleared.body.data.schedule.skipped_dates, []);
    assert.ok((await visitsOf(job.id)).some((v) => v.occurrence_date === gone.occurrence_date));
  });

  test('completed stops the series after today; scheduled resumes it from today; one-off ends it', async () => {
    const job = (await api.post('/api/v1/jobs', { name: 'Pool', type: 'recurring', status: 'in_progress', schedule: weekly({ rrule: 'FREQ=DAILY;INTERVAL=3' }) })).body.data;
    const all = await visitsOf(job.id);
    const later = all.filter((v) => v.start_date > today);
    const before = (await outbox()).length;
    const stop = await api.put(`/api/v1/jobs/${job.id}/status`, { status: 'completed' });
    assert.equal(stop.status, 200);
    assert.equal(stop.body.data.schedule.next_visit_on, all.some((v) => v.start_date === today) ? today : null);
    assert.deepEqual((await visitsOf(job.id)).map((v) => v.start_date), all.filter((v) => v.start_date <= today).map((v) => v.start_date));
    assert.equal((await outbox()).slice(before).filter((e) => e.event === 'event_deleted').length, later.length);
    // No visits made while stopped by a rule change (which still replaces the visits from today on).
    const quiet = await api.put(`/api/v1/jobs/${job.id}`, { schedule: weekly({ rrule: 'FREQ=DAILY;INTERVAL=2' }) });
    assert.equal(quiet.body.meta.visits_created, 0);

    const resume = await api.put(`/api/v1/jobs/${job.id}`, { status: 'scheduled' });
    assert.equal(resume.status, 200);
    assert.equal(resume.body.meta.visits_created, expected('FREQ=DAILY;INTERVAL=2', today, today).length);
    assert.ok((await visitsOf(job.id)).filter((v) => v.start_date > today).length > 100);

    const end = await api.put(`/api/v1/jobs/${job.id}`, { type: 'one-off' });
    assert.equal(end.status, 200);
    assert.equal(end.body.data.schedule, null);
    assert.ok(end.body.meta.visits_deleted > 100);
    assert.deepEqual((await visitsOf(job.id)).filter((v) => v.start_date >= today && v.status === 'scheduled'), []);
  });

  test('the daily run extends each open series day by day, once', async () => {
    const job = (await api.post('/api/v1/jobs', { name: 'Windows', type: 'recurring', schedule: weekly({ rrule: 'FREQ=DAILY', all_day: true, start_time: undefined, end_time: undefined }) })).body.data;
    assert.deepEqual([job.schedule.all_day, job.schedule.start_time], [true, null]);
    const count = (await visitsOf(job.id)).length;
    const tomorrow = addDays(today, 1);
    const run = (date: string) => t.db.transaction().execute((trx) => runRecurringDay(trx, { id: ws.workspace.id, timezone: ZONE }, date, 365));
    const first = await run(tomorrow);
    assert.ok(first.visits_created >= 1);
    const visits = await visitsOf(job.id);
    assert.equal(visits.length, count + 1);
    assert.equal(visits.at(-1)?.start_date, addDays(horizon, 1));
    assert.equal(visits.at(-1)?.all_day, true);
    assert.deepEqual(await run(tomorrow), { series: 0, visits_created: 0 });
    assert.equal((await api.get(`/api/v1/jobs/${job.id}`)).body.data.schedule.generated_through, addDays(horizon, 1));
  });

  test('POST /jobs/schedule-preview: dates and description, the rule validated at ["rrule"]', async () => {
    const res = await api.post('/api/v1/jobs/schedule-preview', { rrule: 'FREQ=MONTHLY;BYDAY=-1FR', starts_on: '2026-01-01', count: 3 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { dates: ['2026-01-30', '2026-02-27', '2026-03-27'], description: 'Monthly on the last Friday' });
    assert.equal((await api.post('/api/v1/jobs/schedule-preview', { rrule: 'FREQ=DAILY', starts_on: '2026-01-01' })).body.data.dates.length, 10);
    const bad = await api.post('/api/v1/jobs/schedule-preview', { rrule: 'FREQ=WEEKLY;BYDAY=XX', starts_on: '2026-01-01' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details, [{ path: ['rrule'], message: 'BYDAY: "XX" is not a weekday (MO, TU, WE, TH, FR, SA, SU)' }]);
    for (const count of [0, 51, 2.5]) {
      const r = await api.post('/api/v1/jobs/schedule-preview', { rrule: 'FREQ=DAILY', starts_on: '2026-01-01', count });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.details[0].path, ['count']);
    }
  });
});
