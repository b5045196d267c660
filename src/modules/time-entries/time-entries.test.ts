import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import type { DB } from '../../db/schema.ts';
import { round2, weekOf } from '../../domain/weeks.ts';

const at = () => new Date().toISOString();
const pricing = { line_items: '[]', discount: 0, discount_unit: '%', deposit: 0, deposit_unit: '%', tax_rate: 0, total: 0 };

// Jobs, requests and quotes are inserted directly: these tests don't depend on the sales routes.
async function insertRefs(db: Kysely<DB>, workspaceId: number, number: number) {
  const base = { workspace_id: workspaceId, number, created_at: at(), updated_at: at() };
  const job = await db
    .insertInto('jobs')
    .values({ ...base, ...pricing, type: 'one-off', expenses: '[]', status: 'draft' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const request = await db
    .insertInto('requests')
    .values({ ...base, status: 'new' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const quote = await db
    .insertInto('quotes')
    .values({ ...base, ...pricing, status: 'draft' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { job_id: job.id, request_id: request.id, quote_id: quote.id };
}

/** Every timesheet of the workspace against the sum of its entries, straight from the tables. */
async function drift(db: Kysely<DB>, workspaceId: number) {
  const sheets = await db.selectFrom('timesheets').selectAll().where('workspace_id', '=', workspaceId).execute();
  const entries = await db.selectFrom('time_entries').selectAll().where('workspace_id', '=', workspaceId).execute();
  const problems: string[] = [];
  for (const s of sheets) {
    const mine = entries.filter((e) => e.timesheet_id === s.id);
    const sum = round2(mine.reduce((n, e) => n + e.total_time, 0));
    if (s.total_time !== sum) problems.push(`timesheet ${s.id}: total ${s.total_time}, entries sum ${sum}`);
  }
  for (const e of entries) {
    const s = sheets.find((x) => x.id === e.timesheet_id);
    if (!s || s.user_id !== e.user_id || s.start_date > e.start_date || s.end_date < e.start_date) problems.push(`entry ${e.id} is in the wrong timesheet`);
  }
  const keys = sheets.map((s) => `${s.user_id} ${s.start_date}`);
  if (new Set(keys).size !== keys.length) problems.push('two timesheets for one user and week');
  return { problems, sheets, entries };
}

const sheetOf = async (api: Client, id: number) => (await api.get(`/api/v1/timesheets/${id}`)).body.data;

describe('time entries', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;
  let ownerId: string;
  let member: Awaited<ReturnType<typeof seedUser>>;
  let other: Awaited<ReturnType<typeof seedWorkspace>>;

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    api = client(t.app, seeded.token);
    workspaceId = seeded.workspace.id;
    ownerId = seeded.owner.user_id;
    member = await seedUser(t.db, workspaceId);
    other = await seedWorkspace(t.db);
  });
  after(() => t.close());

  const counts = async () => {
    const n = async (table: 'time_entries' | 'timesheets') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return [await n('time_entries'), await n('timesheets')];
  };

  test("create answers 201; user_id defaults to the key's user; D9 hours; the week's draft timesheet is made", async () => {
    const res = await api.post('/api/v1/time-entries', {
      start_date: '2024-03-06',
      end_date: '2024-03-06',
      start_time: '09:00',
      end_time: '17:20',
      description: 'Fence',
    });
    assert.equal(res.status, 201);
    const e = res.body.data;
    assert.equal(e.user_id, ownerId);
    assert.equal(e.total_time, 8.33);
    assert.equal(e.workspace_id, workspaceId);
    assert.equal(e.description, 'Fence');
    for (const f of ['job_id', 'request_id', 'quote_id']) assert.equal(e[f], null);
    assert.match(e.created_at, /^\d{4}-\d\d-\d\dT/);
    const sheet = await sheetOf(api, e.timesheet_id);
    assert.equal(sheet.user_id, ownerId);
    assert.equal(sheet.status, 'draft');
    assert.equal(sheet.start_date, '2024-03-04'); // D9: Monday by default
    assert.equal(sheet.end_date, '2024-03-10'); // D30
    assert.equal(sheet.total_time, 8.33);
    assert.deepEqual(await api.get(`/api/v1/time-entries/${e.id}`).then((r) => r.body.data), e);
  });

  test('total_time: supplied wins (to two decimals), else hours between both times across days, else 0', async () => {
    const post = async (body: Record<string, unknown>) =>
      (await api.post('/api/v1/time-entries', { start_date: '2024-04-01', end_date: '2024-04-01', ...body })).body.data;
    assert.equal((await post({ start_time: '08:00', end_time: '09:00', total_time: 0.5 })).total_time, 0.5);
    assert.equal((await post({ total_time: 1.239 })).total_time, 1.24);
    assert.equal((await post({})).total_time, 0);
    assert.equal((await post({ start_time: '08:00' })).total_time, 0);
    assert.equal((await post({ start_time: '08:00', end_time: '08:00' })).total_time, 0);
    assert.equal((await post({ end_date: '2024-04-02', start_time: '22:00', end_time: '06:15' })).total_time, 8.25);
    assert.equal((await post({ end_date: '2024-04-03', start_time: '08:00', end_time: '08:00' })).total_time, 48);
  });

  test("D9 hours are elapsed hours on the workspace's clock: daylight-saving days count 23 or 25", async () => {
    const ws = await seedWorkspace(t.db);
    await t.db.updateTable('workspaces').set({ timezone: 'America/New_York' }).where('id', '=', ws.workspace.id).execute();
    const nyc = client(t.app, ws.token);
    const spring = await nyc.post('/api/v1/time-entries', { start_date: '2024-03-10', end_date: '2024-03-10', start_time: '00:00', end_time: '04:00' });
    assert.equal(spring.body.data.total_time, 3);
    const fall = await nyc.post('/api/v1/time-entries', { start_date: '2024-11-02', end_date: '2024-11-03', start_time: '22:00', end_time: '06:00' });
    assert.equal(fall.body.data.total_time, 9);
    // The same entry in a UTC workspace is plain wall-clock arithmetic.
    assert.equal(
      (await api.post('/api/v1/time-entries', { start_date: '2024-03-10', end_date: '2024-03-10', start_time: '00:00', end_time: '04:00' })).body.data
        .total_time,
      4,
    );
  });

  test('every field is stored; user_id names another member, whose timesheet it joins', async () => {
    const refs = await insertRefs(t.db, workspaceId, 1);
    const res = await api.post('/api/v1/time-entries', {
      start_date: '2024-03-07',
      end_date: '2024-03-07',
      user_id: member.user_id.toUpperCase(),
      ...refs,
      total_time: 2,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const e = res.body.data;
    assert.equal(e.user_id, member.user_id);
    assert.deepEqual([e.job_id, e.request_id, e.quote_id], [refs.job_id, refs.request_id, refs.quote_id]);
    const sheet = await sheetOf(api, e.timesheet_id);
    assert.equal(sheet.user_id, member.user_id);
    assert.equal(sheet.start_date, '2024-03-04');
    assert.deepEqual(
      sheet.time_entries.map((x: { id: number }) => x.id),
      [e.id],
    );
  });

  test('validation: D4 400 with details naming the field, nothing written (no entry, no timesheet)', async () => {
    const before = await counts();
    const foreign = await insertRefs(t.db, other.workspace.id, 1);
    const day = { start_date: '2030-01-07', end_date: '2030-01-07' };
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ end_date: '2030-01-07' }, ['start_date']],
      [{ start_date: '2030-01-07' }, ['end_date']],
      [{ start_date: '2030-01-07', end_date: '2030-01-06' }, ['end_date']],
      [{ ...day, start_time: '10:30', end_time: '10:29' }, ['end_time']],
      [{ ...day, start_time: '8:00' }, ['start_time']],
      [{ ...day, end_time: '24:00' }, ['end_time']],
      [{ ...day, end_time: '10:5' }, ['end_time']],
      [{ start_date: '2030-02-29', end_date: '2030-03-01' }, ['start_date']],
      [{ ...day, total_time: -1 }, ['total_time']],
      [{ ...day, total_time: '2' }, ['total_time']],
      [{ ...day, user_id: '00000000-0000-4000-8000-000000000000' }, ['user_id']],
      [{ ...day, user_id: other.owner.user_id }, ['user_id']], // D11: another workspace's member
      [{ ...day, job_id: foreign.job_id }, ['job_id']],
      [{ ...day, request_id: foreign.request_id }, ['request_id']],
      [{ ...day, quote_id: foreign.quote_id }, ['quote_id']],
      [{ ...day, job_id: 2_000_000_000 }, ['job_id']],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/api/v1/time-entries', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body));
    }
    assert.deepEqual(await counts(), before);
  });

  test('update: partial; times recompute the hours, other fields keep them, supplied hours win', async () => {
    const e = (await api.post('/api/v1/time-entries', { start_date: '2024-05-06', end_date: '2024-05-06', start_time: '08:00', end_time: '12:00' })).body.data;
    const url = `/api/v1/time-entries/${e.id}`;
    let res = await api.put(url, { description: 'Gutters' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.total_time, 4);
    assert.equal(res.body.data.start_time, '08:00');
    res = await api.put(url, { total_time: 3.5 });
    assert.equal(res.body.data.total_time, 3.5);
    res = await api.put(url, { description: 'Gutters and roof' });
    assert.equal(res.body.data.total_time, 3.5, 'a change that is not a time keeps supplied hours');
    res = await api.put(url, { end_time: '13:30' });
    assert.equal(res.body.data.total_time, 5.5);
    res = await api.put(url, { end_time: '14:00', total_time: 1 });
    assert.equal(res.body.data.total_time, 1);
    assert.equal(
      (await sheetOf(api, e.timesheet_id)).total_time,
      round2(
        (await t.db.selectFrom('time_entries').select('total_time').where('timesheet_id', '=', e.timesheet_id).execute()).reduce((n, r) => n + r.total_time, 0),
      ),
    );
    // The rules hold for the record as it will be.
    const before = (await api.get(url)).body;
    for (const [body, path] of [
      [{ end_date: '2024-05-05' }, ['end_date']],
      [{ start_time: '15:00' }, ['end_time']],
      [{ start_time: '25:00' }, ['start_time']],
      [{ user_id: other.owner.user_id }, ['user_id']],
      [{ quote_id: 999_999 }, ['quote_id']],
    ] as const) {
      const bad = await api.put(url, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.deepEqual(bad.body.details[0].path, path);
    }
    assert.deepEqual((await api.get(url)).body, before, 'nothing written');
  });

  test('moving an entry to another week or user moves it between timesheets; an emptied one stays at 0', async () => {
    const a = (await api.post('/api/v1/time-entries', { start_date: '2024-09-02', end_date: '2024-09-02', total_time: 2 })).body.data;
    const b = (await api.post('/api/v1/time-entries', { start_date: '2024-09-03', end_date: '2024-09-03', total_time: 3 })).body.data;
    const first = a.timesheet_id;
    assert.equal(b.timesheet_id, first);
    assert.equal((await sheetOf(api, first)).total_time, 5);

    const moved = (await api.put(`/api/v1/time-entries/${a.id}`, { start_date: '2024-09-10', end_date: '2024-09-10' })).body.data;
    assert.notEqual(moved.timesheet_id, first);
    assert.equal((await sheetOf(api, first)).total_time, 3);
    const second = await sheetOf(api, moved.timesheet_id);
    assert.deepEqual([second.start_date, second.end_date, second.total_time, second.user_id], ['2024-09-09', '2024-09-15', 2, ownerId]);

    const toMember = (await api.put(`/api/v1/time-entries/${b.id}`, { user_id: member.user_id })).body.data;
    const emptied = await sheetOf(api, first);
    assert.equal(emptied.total_time, 0, 'the emptied timesheet is kept, at 0');
    assert.deepEqual(emptied.time_entries, []);
    const memberSheet = await sheetOf(api, toMember.timesheet_id);
    assert.deepEqual([memberSheet.user_id, memberSheet.start_date, memberSheet.total_time], [member.user_id, '2024-09-02', 3]);

    // Back into the emptied week: the same timesheet again, not a second one.
    const back = (await api.put(`/api/v1/time-entries/${a.id}`, { start_date: '2024-09-08', end_date: '2024-09-08' })).body.data;
    assert.equal(back.timesheet_id, first);
    assert.equal((await sheetOf(api, first)).total_time, 2);
    assert.equal((await sheetOf(api, moved.timesheet_id)).total_time, 0);
  });

  test("the week follows the workspace's week_start (D9); a week is start + 6 days (D30)", async () => {
    const ws = await seedWorkspace(t.db);
    const sunday = client(t.app, ws.token);
    const post = async (date: string) => (await sunday.post('/api/v1/time-entries', { start_date: date, end_date: date, total_time: 1 })).body.data;
    await t.db
      .updateTable('workspaces')
      .set({ settings: JSON.stringify({ week_start: 'sunday' }) })
      .where('id', '=', ws.workspace.id)
      .execute();
    const sun = await sheetOf(sunday, (await post('2024-03-10')).timesheet_id);
    assert.deepEqual([sun.start_date, sun.end_date], ['2024-03-10', '2024-03-16']);
    const sat = await sheetOf(sunday, (await post('2024-03-09')).timesheet_id);
    assert.deepEqual([sat.start_date, sat.end_date], ['2024-03-03', '2024-03-09']);
    // A Monday workspace puts the same Sunday at the end of its week.
    const mon = await sheetOf(api, (await api.post('/api/v1/time-entries', { start_date: '2024-03-10', end_date: '2024-03-10' })).body.data.timesheet_id);
    assert.deepEqual([mon.start_date, mon.end_date], ['2024-03-04', '2024-03-10']);
    // The week holds the start date: an entry past midnight on the last day stays in it.
    const late = await sheetOf(
      sunday,
      (await sunday.post('/api/v1/time-entries', { start_date: '2024-03-16', end_date: '2024-03-17', start_time: '22:00', end_time: '02:00' })).body.data
        .timesheet_id,
    );
    assert.equal(late.start_date, '2024-03-10');
  });

  test('delete is permanent and takes the hours off the timesheet; then 404 Time entry not found', async () => {
    const a = (await api.post('/api/v1/time-entries', { start_date: '2024-10-07', end_date: '2024-10-07', total_time: 4 })).body.data;
    const b = (await api.post('/api/v1/time-entries', { start_date: '2024-10-08', end_date: '2024-10-08', total_time: 1.25 })).body.data;
    assert.equal((await sheetOf(api, a.timesheet_id)).total_time, 5.25);
    assert.deepEqual((await api.delete(`/api/v1/time-entries/${a.id}`)).body, { success: true, data: { deleted: true } });
    assert.equal((await sheetOf(api, a.timesheet_id)).total_time, 1.25);
    assert.deepEqual((await api.get(`/api/v1/time-entries/${a.id}`)).body, { success: false, error: 'Time entry not found' });
    assert.equal((await api.delete(`/api/v1/time-entries/${a.id}`)).status, 404);
    assert.deepEqual((await api.put(`/api/v1/time-entries/${a.id}`, { total_time: 1 })).body, { success: false, error: 'Time entry not found' });
    await api.delete(`/api/v1/time-entries/${b.id}`);
    const sheet = await sheetOf(api, b.timesheet_id);
    assert.equal(sheet.total_time, 0, 'an emptied timesheet stays, at 0');
  });

  test('D5: non-integer and out-of-range ids are 404 Time entry not found', async () => {
    for (const id of ['abc', '1.5', '0', '99999999999']) {
      const res = await api.get(`/api/v1/time-entries/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { success: false, error: 'Time entry not found' });
    }
  });

  test('deleting a job leaves its time entries and the totals (D12)', async () => {
    const refs = await insertRefs(t.db, workspaceId, 7);
    const e = (await api.post('/api/v1/time-entries', { start_date: '2024-11-11', end_date: '2024-11-11', total_time: 6, job_id: refs.job_id })).body.data;
    await t.db.deleteFrom('jobs').where('id', '=', refs.job_id).execute();
    const res = await api.get(`/api/v1/time-entries/${e.id}`);
    assert.equal(res.body.data.job_id, null);
    assert.equal((await sheetOf(api, e.timesheet_id)).total_time, 6);
  });

  test('scopes: timesheets:read reads, timesheets:write writes; events scopes do not reach time entries', async () => {
    const reader = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['timesheets:read']));
    assert.equal((await reader.get('/api/v1/time-entries')).status, 200);
    const denied = await reader.post('/api/v1/time-entries', { start_date: '2024-05-06', end_date: '2024-05-06' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: timesheets:write' });
    const writer = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['timesheets:write'], { userId: member.user_id }));
    const made = await writer.post('/api/v1/time-entries', { start_date: '2024-05-06', end_date: '2024-05-06' });
    assert.equal(made.status, 201);
    assert.equal(made.body.data.user_id, member.user_id, "the default is the key's own user");
    assert.equal((await writer.get('/api/v1/time-entries')).status, 403);
    const events = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['events:read', 'events:write']));
    assert.equal((await events.get('/api/v1/time-entries')).status, 403);
    assert.equal((await events.post('/api/v1/time-entries', { start_date: '2024-05-06', end_date: '2024-05-06' })).status, 403);
  });

  test("another workspace's entry ids answer like absent ones and change nothing", async () => {
    const e = (await api.post('/api/v1/time-entries', { start_date: '2024-12-02', end_date: '2024-12-02', total_time: 2 })).body.data;
    const intruder = client(t.app, other.token);
    const before = [(await api.get(`/api/v1/time-entries/${e.id}`)).body, await sheetOf(api, e.timesheet_id)];
    for (const call of [
      (id: number) => intruder.get(`/api/v1/time-entries/${id}`),
      (id: number) => intruder.put(`/api/v1/time-entries/${id}`, { total_time: 9, start_date: '2024-12-20', end_date: '2024-12-20' }),
      (id: number) => intruder.delete(`/api/v1/time-entries/${id}`),
    ]) {
      const foreign = await call(e.id);
      const absent = await call(2_000_000_000);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, absent.body);
      assert.deepEqual(foreign.body, { success: false, error: 'Time entry not found' });
    }
    assert.deepEqual([(await api.get(`/api/v1/time-entries/${e.id}`)).body, await sheetOf(api, e.timesheet_id)], before);
    assert.deepEqual((await intruder.get('/api/v1/time-entries')).body.data, []);
  });

  describe('list', () => {
    let list: Client;
    let e: number[];
    let refs: Awaited<ReturnType<typeof insertRefs>>;
    let second: string;

    before(async () => {
      const fresh = await seedWorkspace(t.db);
      list = client(t.app, fresh.token);
      second = (await seedUser(t.db, fresh.workspace.id)).user_id;
      refs = await insertRefs(t.db, fresh.workspace.id, 1);
      e = [];
      for (const body of [
        { start_date: '2024-07-01', end_date: '2024-07-01', job_id: refs.job_id, description: 'Mowing' },
        { start_date: '2024-07-03', end_date: '2024-07-04', request_id: refs.request_id, user_id: second },
        { start_date: '2024-07-05', end_date: '2024-07-05', quote_id: refs.quote_id, total_time: 9 },
        { start_date: '2024-07-08', end_date: '2024-07-08', user_id: second, job_id: refs.job_id, total_time: 1 },
      ]) {
        const res = await list.post('/api/v1/time-entries', body);
        assert.equal(res.status, 201);
        e.push(res.body.data.id);
      }
    });

    test('D1 order, pagination and sort', async () => {
      const res = await list.get('/api/v1/time-entries');
      assert.deepEqual(
        res.body.data.map((x: { id: number }) => x.id),
        [...e].reverse(),
      );
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
      const byHours = await list.get('/api/v1/time-entries?sort_by=total_time&sort_direction=desc&per_page=2');
      assert.deepEqual(
        byHours.body.data.map((x: { id: number }) => x.id),
        [e[2], e[3]],
      );
      assert.equal(byHours.body.pagination.total_pages, 2);
    });

    test('filters: start_date, end_date, user_id, job_id, request_id, quote_id, search', async () => {
      const q = async (query: string) => (await list.get(`/api/v1/time-entries?sort_direction=asc&${query}`)).body.data.map((x: { id: number }) => x.id);
      assert.deepEqual(await q('start_date=2024-07-03'), [e[1], e[2], e[3]]);
      assert.deepEqual(await q('end_date=2024-07-04'), [e[0], e[1]]);
      assert.deepEqual(await q('start_date=2024-07-02&end_date=2024-07-05'), [e[1], e[2]]);
      assert.deepEqual(await q(`user_id=${second}`), [e[1], e[3]]);
      assert.deepEqual(await q(`job_id=${refs.job_id}`), [e[0], e[3]]);
      assert.deepEqual(await q(`request_id=${refs.request_id}`), [e[1]]);
      assert.deepEqual(await q(`quote_id=${refs.quote_id}`), [e[2]]);
      assert.deepEqual(await q('search=mow'), [e[0]]);
    });

    test('D4: bad query parameters are 400 Invalid request with details', async () => {
      for (const query of ['user_id=me', 'start_date=2024-7-1', 'end_date=x', 'job_id=-1', 'quote_id=a', 'sort_by=user_id', 'sort_direction=sideways']) {
        const res = await list.get(`/api/v1/time-entries?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error, 'Invalid request');
        assert.ok(res.body.details.length > 0);
      }
    });
  });

  test('concurrent moves between weeks and users keep every total equal to its entries', async () => {
    const ws = await seedWorkspace(t.db);
    const conc = client(t.app, ws.token);
    const users = [ws.owner.user_id, (await seedUser(t.db, ws.workspace.id)).user_id];
    const weeks = ['2025-01-06', '2025-01-13', '2025-01-20'];
    const entries: number[] = [];
    for (let i = 0; i < 18; i++) {
      const day = weeks[i % 3];
      const res = await conc.post('/api/v1/time-entries', { start_date: day, end_date: day, total_time: 1 + i / 4, user_id: users[i % 2] });
      entries.push(res.body.data.id);
    }
    for (let round = 0; round < 4; round++) {
      // Every entry moves at once, several of them twice in parallel (to two targets).
      const moves = entries.flatMap((id, i) => {
        const target = (k: number) => {
          const day = weeks[(i + round + k) % 3];
          return conc.put(`/api/v1/time-entries/${id}`, { start_date: day, end_date: day, user_id: users[(i + round + k) % 2] });
        };
        return i % 3 === 0 ? [target(1), target(2)] : [target(1)];
      });
      // And new entries race to create the same fresh week's timesheet.
      const fresh = `2025-02-0${3 + round}`;
      const creates = users.flatMap((user_id) =>
        [1, 2, 3].map((h) => conc.post('/api/v1/time-entries', { start_date: fresh, end_date: fresh, total_time: h, user_id })),
      );
      const results = await Promise.all([...moves, ...creates]);
      for (const r of results) assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
      const { problems } = await drift(t.db, ws.workspace.id);
      assert.deepEqual(problems, [], `round ${round}`);
    }
    // The API agrees with the tables.
    const { sheets } = await drift(t.db, ws.workspace.id);
    for (const s of sheets) {
      const got = await sheetOf(conc, s.id);
      assert.equal(got.total_time, round2(got.time_entries.reduce((n: number, x: { total_time: number }) => n + x.total_time, 0)));
    }
  });

  test('property: after any sequence of creates, updates and deletes, every timesheet total is the sum of its entries', async () => {
    type Op =
      | { kind: 'create'; user: number; day: number; times: [number, number] | null; span: number; total: number | null }
      | { kind: 'update'; pick: number; user: number | null; day: number | null; times: [number, number] | null; total: number | null }
      | { kind: 'invalid'; pick: number }
      | { kind: 'delete'; pick: number };
    const BASE = Date.UTC(2025, 2, 1);
    const date = (day: number) => new Date(BASE + day * 86_400_000).toISOString().slice(0, 10);
    const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const times = fc.option(fc.tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 1439 })), { nil: null });
    const total = fc.option(
      fc.integer({ min: 0, max: 1200 }).map((n) => n / 100),
      { nil: null },
    );
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), user: fc.nat(2), day: fc.nat(20), times, span: fc.nat(1), total }),
      fc.record({
        kind: fc.constant('update' as const),
        pick: fc.nat(),
        user: fc.option(fc.nat(2), { nil: null }),
        day: fc.option(fc.nat(20), { nil: null }),
        times,
        total,
      }),
      fc.record({ kind: fc.constant('invalid' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );

    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 15 }), fc.constantFrom('monday', 'sunday'), async (ops, weekStart) => {
        const ws = await seedWorkspace(t.db);
        await t.db
          .updateTable('workspaces')
          .set({ settings: JSON.stringify({ week_start: weekStart }) })
          .where('id', '=', ws.workspace.id)
          .execute();
        const prop = client(t.app, ws.token);
        const users = [ws.owner.user_id, (await seedUser(t.db, ws.workspace.id)).user_id, (await seedUser(t.db, ws.workspace.id)).user_id];
        // The model: entry id -> what the entry must be.
        const model = new Map<number, { user: string; start: string; total: number }>();
        const timesOf = (start: string, end: string, tm: [number, number] | null) => {
          if (!tm) return {};
          const [s, e] = start === end ? [Math.min(...tm), Math.max(...tm)] : tm;
          return { start_time: hhmm(s), end_time: hhmm(e) };
        };
        for (const o of ops) {
          const ids = [...model.keys()];
          if (o.kind === 'create') {
            const start = date(o.day);
            const end = date(o.day + o.span);
            const body = {
              start_date: start,
              end_date: end,
              user_id: users[o.user],
              ...timesOf(start, end, o.times),
              ...(o.total === null ? {} : { total_time: o.total }),
            };
            const res = await prop.post('/api/v1/time-entries', body);
            assert.equal(res.status, 201, JSON.stringify(res.body));
            model.set(res.body.data.id, { user: users[o.user], start, total: res.body.data.total_time });
          } else if (!ids.length) {
            // nothing to update or delete yet
          } else if (o.kind === 'update') {
            const id = ids[o.pick % ids.length];
            const current = model.get(id)!;
            const body: Record<string, unknown> = {};
            if (o.user !== null) body.user_id = users[o.user];
            if (o.day !== null)
              Object.assign(body, { start_date: date(o.day), end_date: date(o.day) }, timesOf(date(o.day), date(o.day), o.times ?? [480, 960]));
            if (o.total !== null) body.total_time = o.total;
            const res = await prop.put(`/api/v1/time-entries/${id}`, body);
            assert.equal(res.status, 200, JSON.stringify(res.body));
            model.set(id, { user: res.body.data.user_id, start: res.body.data.start_date, total: res.body.data.total_time });
            assert.equal(res.body.data.start_date, o.day === null ? current.start : date(o.day));
          } else if (o.kind === 'invalid') {
            // Refused writes change nothing.
            const id = ids[o.pick % ids.length];
            const res = await prop.put(`/api/v1/time-entries/${id}`, { start_date: '2025-04-02', end_date: '2025-04-01', total_time: 99 });
            assert.equal(res.status, 400);
          } else {
            const id = ids[o.pick % ids.length];
            assert.equal((await prop.delete(`/api/v1/time-entries/${id}`)).status, 200);
            model.delete(id);
          }
        }
        const { problems, sheets, entries } = await drift(t.db, ws.workspace.id);
        assert.deepEqual(problems, []);
        assert.deepEqual(entries.map((e) => e.id).sort(), [...model.keys()].sort());
        // Each expected (user, week) total, from the model alone.
        const expected = new Map<string, number>();
        for (const m of model.values()) {
          const key = `${m.user} ${weekOf(m.start, weekStart).start_date}`;
          expected.set(key, round2((expected.get(key) ?? 0) + m.total));
        }
        for (const s of sheets) assert.equal(s.total_time, expected.get(`${s.user_id} ${s.start_date}`) ?? 0);
      }),
      { numRuns: 30 },
    );
  });
});
