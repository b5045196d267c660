import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { addDays, hoursBetween, isCalendarDate, round2, spanProblems, weekOf } from '../../domain/weeks.ts';

describe('weeks and hours (D9, D30)', () => {
  test('weekOf: Monday weeks by default, Sunday weeks on request; end = start + 6', () => {
    assert.deepEqual(weekOf('2024-03-06'), { start_date: '2024-03-04', end_date: '2024-03-10' });
    assert.deepEqual(weekOf('2024-03-04'), { start_date: '2024-03-04', end_date: '2024-03-10' });
    assert.deepEqual(weekOf('2024-03-10'), { start_date: '2024-03-04', end_date: '2024-03-10' });
    assert.deepEqual(weekOf('2024-03-10', 'sunday'), { start_date: '2024-03-10', end_date: '2024-03-16' });
    assert.deepEqual(weekOf('2024-03-09', 'sunday'), { start_date: '2024-03-03', end_date: '2024-03-09' });
    assert.deepEqual(weekOf('2025-01-01'), { start_date: '2024-12-30', end_date: '2025-01-05' }, 'across a year');
    assert.deepEqual(weekOf('2024-02-29', 'sunday'), { start_date: '2024-02-25', end_date: '2024-03-02' }, 'across a leap day');
    for (let d = 0; d < 400; d += 13) {
      const date = addDays('2024-01-01', d);
      for (const ws of ['monday', 'sunday'] as const) {
        const w = weekOf(date, ws);
        assert.equal(w.end_date, addDays(w.start_date, 6));
        assert.ok(w.start_date <= date && date <= w.end_date);
        assert.equal(new Date(`${w.start_date}T00:00:00Z`).getUTCDay(), ws === 'monday' ? 1 : 0);
      }
    }
  });

  test('hoursBetween: to two decimals, across days, in the workspace zone', () => {
    assert.equal(hoursBetween('2024-03-06', '09:00', '2024-03-06', '17:20'), 8.33);
    assert.equal(hoursBetween('2024-03-06', '09:00', '2024-03-06', '09:01'), 0.02);
    assert.equal(hoursBetween('2024-03-06', '22:30', '2024-03-07', '06:00'), 7.5);
    assert.equal(hoursBetween('2024-12-31', '23:00', '2025-01-01', '01:00'), 2);
    assert.equal(hoursBetween('2024-03-10', '00:00', '2024-03-10', '04:00', 'America/New_York'), 3);
    assert.equal(hoursBetween('2024-11-03', '00:00', '2024-11-03', '04:00', 'America/New_York'), 5);
    assert.equal(hoursBetween('2024-04-07', '00:00', '2024-04-07', '04:00', 'Australia/Lord_Howe'), 4.5, 'a half-hour change');
    assert.equal(hoursBetween('2024-03-10', '00:00', '2024-03-10', '04:00', 'Not/AZone'), 4, 'an unknown zone counts as UTC');
    assert.equal(hoursBetween('2024-03-10', '02:50', '2024-03-10', '03:10', 'America/New_York'), 0, 'never negative inside a skipped hour');
  });

  test('round2 and calendar checks', () => {
    assert.equal(round2(1.005), 1.01);
    assert.equal(round2(2.675), 2.68);
    assert.equal(round2(0.1 + 0.2), 0.3);
    assert.equal(isCalendarDate('2024-02-29'), true);
    assert.equal(isCalendarDate('2023-02-29'), false);
    assert.deepEqual(
      spanProblems({ start_date: '2024-01-02', end_date: '2024-01-01' }).map((p) => p.path),
      [['end_date']],
    );
    assert.deepEqual(
      spanProblems({ start_date: '2024-01-01', end_date: '2024-01-01', start_time: '10:00', end_time: '09:00' }).map((p) => p.path),
      [['end_time']],
    );
    assert.deepEqual(spanProblems({ start_date: '2024-01-01', end_date: '2024-01-02', start_time: '10:00', end_time: '09:00' }), []);
  });
});

describe('timesheets', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;
  let owner: { user_id: string; email: string };
  let other: Awaited<ReturnType<typeof seedWorkspace>>;

  const entry = async (body: Record<string, unknown>) => {
    const res = await api.post('/api/v1/time-entries', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; timesheet_id: number };
  };

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    api = client(t.app, seeded.token);
    workspaceId = seeded.workspace.id;
    owner = seeded.owner;
    other = await seedWorkspace(t.db);
  });
  after(() => t.close());

  test('single GET: the record, its entries in working order and user {id, first_name, last_name, email} (D9)', async () => {
    const late = await entry({ start_date: '2024-03-07', end_date: '2024-03-07', start_time: '13:00', end_time: '15:00' });
    const early = await entry({ start_date: '2024-03-05', end_date: '2024-03-05', start_time: '08:00', end_time: '09:30' });
    const untimed = await entry({ start_date: '2024-03-07', end_date: '2024-03-07', total_time: 1 });
    assert.equal(early.timesheet_id, late.timesheet_id);
    const res = await api.get(`/api/v1/timesheets/${late.timesheet_id}`);
    assert.equal(res.status, 200);
    const s = res.body.data;
    assert.deepEqual(
      {
        id: s.id,
        workspace_id: s.workspace_id,
        user_id: s.user_id,
        status: s.status,
        start_date: s.start_date,
        end_date: s.end_date,
        total_time: s.total_time,
      },
      {
        id: late.timesheet_id,
        workspace_id: workspaceId,
        user_id: owner.user_id,
        status: 'draft',
        start_date: '2024-03-04',
        end_date: '2024-03-10',
        total_time: 4.5,
      },
    );
    assert.match(s.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(s.user, { id: owner.user_id, first_name: 'Olive', last_name: 'Owner', email: owner.email });
    assert.deepEqual(
      s.time_entries.map((e: { id: number }) => e.id),
      [early.id, untimed.id, late.id],
    );
    assert.deepEqual(s.time_entries[0], (await api.get(`/api/v1/time-entries/${early.id}`)).body.data);
  });

  test('no create, update or delete routes: 404 Not found', async () => {
    const { timesheet_id } = await entry({ start_date: '2024-03-12', end_date: '2024-03-12', total_time: 2 });
    const before = (await api.get(`/api/v1/timesheets/${timesheet_id}`)).body;
    for (const res of [
      await api.post('/api/v1/timesheets', { user_id: owner.user_id, start_date: '2024-03-11', end_date: '2024-03-17' }),
      await api.put(`/api/v1/timesheets/${timesheet_id}`, { total_time: 100 }),
      await api.patch(`/api/v1/timesheets/${timesheet_id}`, { total_time: 100 }),
      await api.delete(`/api/v1/timesheets/${timesheet_id}`),
    ]) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Not found' });
    }
    assert.deepEqual((await api.get(`/api/v1/timesheets/${timesheet_id}`)).body, before);
  });

  test('PUT /timesheets/:id/status sets any timesheet status and answers the record', async () => {
    const { timesheet_id } = await entry({ start_date: '2024-03-19', end_date: '2024-03-19', total_time: 3 });
    const url = `/api/v1/timesheets/${timesheet_id}/status`;
    for (const status of ['pending', 'approved', 'rejected', 'draft', 'approved']) {
      const res = await api.put(url, { status });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.status, status);
      assert.equal(res.body.data.id, timesheet_id);
      assert.equal(res.body.data.total_time, 3);
      assert.equal(res.body.data.time_entries.length, 1);
    }
    for (const body of [{}, { status: 'submitted' }, { status: 'Approved' }]) {
      const res = await api.put(url, body);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['status']);
    }
    assert.equal((await api.get(`/api/v1/timesheets/${timesheet_id}`)).body.data.status, 'approved');
    // The status is not reset by later entries; the total still follows them.
    await entry({ start_date: '2024-03-20', end_date: '2024-03-20', total_time: 1 });
    const after = (await api.get(`/api/v1/timesheets/${timesheet_id}`)).body.data;
    assert.deepEqual([after.status, after.total_time], ['approved', 4]);
  });

  test('404 Timesheet not found (D32), also for non-integer ids (D5)', async () => {
    for (const id of ['999999', 'abc', '0', '1.5', '99999999999']) {
      assert.deepEqual((await api.get(`/api/v1/timesheets/${id}`)).body, { success: false, error: 'Timesheet not found' }, id);
      const res = await api.put(`/api/v1/timesheets/${id}/status`, { status: 'approved' });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Timesheet not found' }, id);
    }
  });

  test('scopes: timesheets:read lists and reads; the status needs timesheets:write', async () => {
    const { timesheet_id } = await entry({ start_date: '2024-03-26', end_date: '2024-03-26' });
    const reader = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['timesheets:read']));
    assert.equal((await reader.get('/api/v1/timesheets')).status, 200);
    assert.equal((await reader.get(`/api/v1/timesheets/${timesheet_id}`)).status, 200);
    const denied = await reader.put(`/api/v1/timesheets/${timesheet_id}/status`, { status: 'approved' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: timesheets:write' });
    const writer = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['timesheets:write']));
    assert.equal((await writer.put(`/api/v1/timesheets/${timesheet_id}/status`, { status: 'pending' })).status, 200);
    assert.equal((await writer.get('/api/v1/timesheets')).status, 403);
    const events = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['events:read']));
    assert.equal((await events.get('/api/v1/timesheets')).status, 403);
  });

  test("another workspace's timesheet ids answer like absent ones and change nothing", async () => {
    const { timesheet_id } = await entry({ start_date: '2024-04-02', end_date: '2024-04-02', total_time: 2 });
    const intruder = client(t.app, other.token);
    const before = (await api.get(`/api/v1/timesheets/${timesheet_id}`)).body;
    for (const call of [
      (id: number) => intruder.get(`/api/v1/timesheets/${id}`),
      (id: number) => intruder.put(`/api/v1/timesheets/${id}/status`, { status: 'approved' }),
    ]) {
      const foreign = await call(timesheet_id);
      const absent = await call(2_000_000_000);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, absent.body);
      assert.deepEqual(foreign.body, { success: false, error: 'Timesheet not found' });
    }
    assert.deepEqual((await api.get(`/api/v1/timesheets/${timesheet_id}`)).body, before);
    assert.deepEqual((await intruder.get('/api/v1/timesheets')).body.data, []);
    // Entries of another workspace's member can't be logged here (D11), so no timesheet appears for them.
    const res = await intruder.post('/api/v1/time-entries', { start_date: '2024-04-02', end_date: '2024-04-02', user_id: owner.user_id });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details[0].path, ['user_id']);
  });

  describe('list', () => {
    let list: Client;
    let sheets: number[];
    let second: string;

    before(async () => {
      const fresh = await seedWorkspace(t.db);
      list = client(t.app, fresh.token);
      second = (await seedUser(t.db, fresh.workspace.id)).user_id;
      sheets = [];
      for (const body of [
        { start_date: '2024-07-01', end_date: '2024-07-01', total_time: 1 }, // week of 07-01
        { start_date: '2024-07-09', end_date: '2024-07-09', total_time: 2 }, // week of 07-08
        { start_date: '2024-07-10', end_date: '2024-07-10', total_time: 3, user_id: second }, // week of 07-08, second user
        { start_date: '2024-07-17', end_date: '2024-07-17', total_time: 4 }, // week of 07-15
      ]) {
        const res = await list.post('/api/v1/time-entries', body);
        sheets.push(res.body.data.timesheet_id);
      }
      await list.put(`/api/v1/timesheets/${sheets[1]}/status`, { status: 'pending' });
      await list.put(`/api/v1/timesheets/${sheets[2]}/status`, { status: 'approved' });
    });

    test('D1 order; items carry no entries or user; sort and pagination', async () => {
      const res = await list.get('/api/v1/timesheets');
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.data.map((s: { id: number }) => s.id),
        [...sheets].reverse(),
      );
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
      assert.equal('time_entries' in res.body.data[0], false);
      assert.equal('user' in res.body.data[0], false);
      assert.deepEqual(
        res.body.data.map((s: { total_time: number }) => s.total_time),
        [4, 3, 2, 1],
      );
      const sorted = await list.get('/api/v1/timesheets?sort_by=total_time&sort_direction=asc&per_page=3&page=2');
      assert.deepEqual(
        sorted.body.data.map((s: { id: number }) => s.id),
        [sheets[3]],
      );
      assert.equal(sorted.body.pagination.total_pages, 2);
    });

    test('filters: start_date (weeks starting on or after), end_date (ending on or before), user_id, status (one)', async () => {
      const q = async (query: string) => (await list.get(`/api/v1/timesheets?sort_direction=asc&${query}`)).body.data.map((s: { id: number }) => s.id);
      assert.deepEqual(await q('start_date=2024-07-08'), [sheets[1], sheets[2], sheets[3]]);
      assert.deepEqual(await q('start_date=2024-07-02'), [sheets[1], sheets[2], sheets[3]]);
      assert.deepEqual(await q('end_date=2024-07-14'), [sheets[0], sheets[1], sheets[2]]);
      assert.deepEqual(await q('start_date=2024-07-08&end_date=2024-07-14'), [sheets[1], sheets[2]]);
      assert.deepEqual(await q(`user_id=${second}`), [sheets[2]]);
      assert.deepEqual(await q('status=draft'), [sheets[0], sheets[3]]);
      assert.deepEqual(await q('status=approved'), [sheets[2]]);
      assert.deepEqual(await q('status=rejected'), []);
    });

    test('D4: bad query parameters are 400 Invalid request with details', async () => {
      for (const query of ['status=draft,pending', 'status=open', 'user_id=1', 'start_date=2024-07', 'end_date=2024-07-32', 'sort_by=user', 'page=0']) {
        const res = await list.get(`/api/v1/timesheets?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error, 'Invalid request');
        assert.ok(res.body.details.length > 0);
      }
    });
  });
});
