import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import type { DB } from '../../db/schema.ts';

// Jobs and requests are inserted directly: these tests don't depend on the sales routes.
async function insertJob(db: Kysely<DB>, workspaceId: number, number: number, name = `Job ${number}`) {
  const at = new Date().toISOString();
  const row = await db
    .insertInto('jobs')
    .values({
      workspace_id: workspaceId,
      number,
      name,
      type: 'one-off',
      expenses: '[]',
      line_items: '[]',
      discount: 0,
      discount_unit: '%',
      deposit: 0,
      deposit_unit: '%',
      tax_rate: 0,
      total: 0,
      status: 'scheduled',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function insertRequest(db: Kysely<DB>, workspaceId: number, number: number) {
  const at = new Date().toISOString();
  const row = await db
    .insertInto('requests')
    .values({ workspace_id: workspaceId, number, status: 'new', created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((e) => e.id);

describe('events', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;
  let ownerId: string;
  let member: Awaited<ReturnType<typeof seedUser>>;
  let other: Awaited<ReturnType<typeof seedWorkspace>>;
  let jobId: number;
  let requestId: number;

  before(async () => {
    t = await buildTestApp();
    const seeded = await seedWorkspace(t.db);
    api = client(t.app, seeded.token);
    workspaceId = seeded.workspace.id;
    ownerId = seeded.owner.user_id;
    member = await seedUser(t.db, workspaceId);
    other = await seedWorkspace(t.db);
    jobId = await insertJob(t.db, workspaceId, 1, 'Roof repair');
    requestId = await insertRequest(t.db, workspaceId, 1);
  });
  after(() => t.close());

  const count = async () => {
    const e = await t.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const a = await t.db
      .selectFrom('event_assignees')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return [Number(e.n), Number(a.n)];
  };

  test('create answers 201 (D3) with defaults, nulls, empty assignees and no job', async () => {
    const res = await api.post('/api/v1/events', { start_date: '2024-05-06', end_date: '2024-05-06' });
    assert.equal(res.status, 201);
    const e = res.body.data;
    assert.equal(e.workspace_id, workspaceId);
    assert.equal(e.type, 'event');
    assert.equal(e.status, 'scheduled');
    assert.equal(e.all_day, false);
    assert.equal(e.multi_day, false);
    for (const f of ['name', 'description', 'job_id', 'request_id', 'start_time', 'end_time', 'job']) assert.equal(e[f], null, f);
    assert.deepEqual(e.assignees, []);
    assert.deepEqual(e.assignee_ids, []);
    assert.match(e.created_at, /^\d{4}-\d\d-\d\dT/);
  });

  test('create stores every field; assignees and the job are expanded on create and single GET', async () => {
    const body = {
      name: 'Inspect roof',
      description: 'Bring the ladder',
      job_id: jobId,
      request_id: requestId,
      start_date: '2024-05-07',
      end_date: '2024-05-08',
      start_time: '09:00',
      end_time: '08:00',
      all_day: true,
      multi_day: true,
      type: 'appointment',
      status: 'pending',
      assignee_ids: [member.user_id, ownerId.toUpperCase(), member.user_id],
    };
    const res = await api.post('/api/v1/events', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const got = await api.get(`/api/v1/events/${res.body.data.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, res.body.data);
    const e = got.body.data;
    for (const f of [
      'name',
      'description',
      'job_id',
      'request_id',
      'start_date',
      'end_date',
      'start_time',
      'end_time',
      'all_day',
      'multi_day',
      'type',
      'status',
    ] as const) {
      assert.deepEqual(e[f], body[f], f);
    }
    assert.deepEqual(e.job, { id: jobId, number: 1, name: 'Roof repair', status: 'scheduled' });
    const expected = [
      { id: member.user_id, first_name: member.first_name, last_name: member.last_name },
      { id: ownerId, first_name: 'Olive', last_name: 'Owner' },
    ].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(e.assignees, expected, 'duplicates collapse; UUIDs compare case-insensitively');
    assert.deepEqual(
      e.assignee_ids,
      expected.map((u) => u.id),
    );
  });

  test('start_date and end_date are required on create: 400 Invalid request naming the field (D4)', async () => {
    for (const [body, field] of [
      [{ end_date: '2024-05-06' }, 'start_date'],
      [{ start_date: '2024-05-06' }, 'end_date'],
    ] as const) {
      const res = await api.post('/api/v1/events', body);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, [field]);
    }
  });

  test('validation: dates and times out of order or malformed, unknown references: 400 with details, nothing written', async () => {
    const before = await count();
    const base = { start_date: '2024-05-06', end_date: '2024-05-06' };
    const foreignJob = await insertJob(t.db, other.workspace.id, 1);
    const foreignRequest = await insertRequest(t.db, other.workspace.id, 1);
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ start_date: '2024-05-06', end_date: '2024-05-05' }, ['end_date']],
      [{ ...base, start_time: '10:00', end_time: '09:59' }, ['end_time']],
      [{ ...base, start_time: '9:00' }, ['start_time']],
      [{ ...base, end_time: '24:00' }, ['end_time']],
      [{ ...base, start_time: '12:60' }, ['start_time']],
      [{ ...base, start_time: '12:00:00' }, ['start_time']],
      [{ ...base, start_time: '7pm' }, ['start_time']],
      [{ start_date: '2024-02-30', end_date: '2024-03-01' }, ['start_date']],
      [{ start_date: '2024/05/06', end_date: '2024-05-06' }, ['start_date']],
      [{ ...base, type: 'meeting' }, ['type']],
      [{ ...base, status: 'done' }, ['status']],
      [{ ...base, assignee_ids: [member.user_id, member.user_id, '00000000-0000-4000-8000-000000000000'] }, ['assignee_ids', 2]],
      [{ ...base, assignee_ids: [other.owner.user_id] }, ['assignee_ids', 0]], // D11: another workspace's user
      [{ ...base, assignee_ids: ['not-a-uuid'] }, ['assignee_ids', 0]],
      [{ ...base, job_id: 999_999 }, ['job_id']],
      [{ ...base, job_id: foreignJob }, ['job_id']],
      [{ ...base, request_id: foreignRequest }, ['request_id']],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/api/v1/events', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(body));
      assert.equal(typeof res.body.details[0].message, 'string');
    }
    // A later day may end earlier in the day.
    assert.equal((await api.post('/api/v1/events', { start_date: '2024-05-06', end_date: '2024-05-07', start_time: '22:00', end_time: '02:00' })).status, 201);
    const after = await count();
    assert.deepEqual(after, [before[0] + 1, before[1]]);
  });

  test('update is partial, checks the record as it will be, and replaces assignees only when given', async () => {
    const created = (
      await api.post('/api/v1/events', { name: 'Visit', start_date: '2024-06-03', end_date: '2024-06-04', start_time: '08:00', assignee_ids: [member.user_id] })
    ).body.data;
    const url = `/api/v1/events/${created.id}`;
    let res = await api.put(url, { description: 'Gate code 1234', bogus: true });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.description, 'Gate code 1234');
    assert.equal(res.body.data.name, 'Visit');
    assert.equal('bogus' in res.body.data, false);
    assert.deepEqual(res.body.data.assignee_ids, [member.user_id], 'omitted assignee_ids keep the assignees');

    // end_date before the stored start_date; end_time before the stored start_time on one day.
    const before = (await api.get(url)).body;
    for (const [body, path] of [
      [{ end_date: '2024-06-02' }, ['end_date']],
      [{ end_date: '2024-06-03', end_time: '07:00' }, ['end_time']],
      [{ assignee_ids: [other.owner.user_id] }, ['assignee_ids', 0]],
      [{ job_id: 123_456 }, ['job_id']],
    ] as const) {
      const bad = await api.put(url, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.deepEqual(bad.body.details[0].path, path);
    }
    assert.deepEqual((await api.get(url)).body, before, 'nothing written');

    res = await api.put(url, { assignee_ids: [ownerId], job_id: jobId, start_time: null });
    assert.deepEqual(res.body.data.assignees, [{ id: ownerId, first_name: 'Olive', last_name: 'Owner' }]);
    assert.equal(res.body.data.job.id, jobId);
    assert.equal(res.body.data.start_time, null);
    res = await api.put(url, { assignee_ids: [], job_id: null });
    assert.deepEqual(res.body.data.assignees, []);
    assert.equal(res.body.data.job, null);
  });

  test('PUT /events/:id/status sets any event status and answers the record', async () => {
    const created = (await api.post('/api/v1/events', { start_date: '2024-06-10', end_date: '2024-06-10', assignee_ids: [member.user_id] })).body.data;
    for (const status of ['in_progress', 'completed', 'missed', 'cancelled', 'pending', 'scheduled']) {
      const res = await api.put(`/api/v1/events/${created.id}/status`, { status });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.status, status);
      assert.equal(res.body.data.id, created.id);
      assert.equal(res.body.data.assignees.length, 1);
    }
    for (const body of [{}, { status: 'done' }, { status: null }]) {
      const res = await api.put(`/api/v1/events/${created.id}/status`, body);
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['status']);
    }
    assert.deepEqual((await api.put('/api/v1/events/999999/status', { status: 'completed' })).body, { success: false, error: 'Event not found' });
    assert.deepEqual((await api.put('/api/v1/events/abc/status', { status: 'completed' })).body, { success: false, error: 'Event not found' });
  });

  test('delete is permanent with its assignees and comments; then 404 Event not found (D12, D32)', async () => {
    const created = (await api.post('/api/v1/events', { start_date: '2024-06-11', end_date: '2024-06-11', assignee_ids: [member.user_id] })).body.data;
    const comment = { workspace_id: workspaceId, related_type: 'event', comment: 'Bring keys', status: 'active', created_at: new Date().toISOString() };
    await t.db
      .insertInto('comments')
      .values({ ...comment, related_id: created.id })
      .execute();
    const del = await api.delete(`/api/v1/events/${created.id}`);
    assert.deepEqual(del.body, { success: true, data: { deleted: true } });
    assert.deepEqual((await api.get(`/api/v1/events/${created.id}`)).body, { success: false, error: 'Event not found' });
    assert.equal((await api.delete(`/api/v1/events/${created.id}`)).status, 404);
    assert.equal((await api.put(`/api/v1/events/${created.id}`, { name: 'x' })).status, 404);
    const left = await t.db.selectFrom('event_assignees').select('user_id').where('event_id', '=', created.id).execute();
    assert.deepEqual(left, []);
    const comments = await t.db.selectFrom('comments').select('id').where('related_type', '=', 'event').where('related_id', '=', created.id).execute();
    assert.deepEqual(comments, []);
  });

  test('D5: non-integer and out-of-range ids are 404 Event not found', async () => {
    for (const id of ['abc', '1.5', '0', '99999999999']) {
      const res = await api.get(`/api/v1/events/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { success: false, error: 'Event not found' });
    }
  });

  test('deleting the job leaves its events, unlinked (D12)', async () => {
    const job = await insertJob(t.db, workspaceId, 50);
    const created = (await api.post('/api/v1/events', { start_date: '2024-06-12', end_date: '2024-06-12', job_id: job })).body.data;
    await t.db.deleteFrom('jobs').where('id', '=', job).execute();
    const res = await api.get(`/api/v1/events/${created.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.job_id, null);
    assert.equal(res.body.data.job, null);
  });

  test('scopes: events:read lists and reads, events:write writes; other scopes are 403', async () => {
    const reader = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['events:read']));
    assert.equal((await reader.get('/api/v1/events')).status, 200);
    const denied = await reader.post('/api/v1/events', { start_date: '2024-05-06', end_date: '2024-05-06' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: events:write' });
    assert.equal((await reader.put('/api/v1/events/1/status', { status: 'completed' })).status, 403);
    const writer = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['events:write']));
    assert.equal((await writer.post('/api/v1/events', { start_date: '2024-05-06', end_date: '2024-05-06' })).status, 201);
    assert.equal((await writer.get('/api/v1/events')).status, 403);
    const timesheets = client(t.app, await keyFor(t.db, workspaceId, 'rest', ['timesheets:read', 'timesheets:write']));
    assert.equal((await timesheets.get('/api/v1/events')).status, 403);
  });

  test("another workspace's event ids answer like absent ones and change nothing", async () => {
    const created = (await api.post('/api/v1/events', { name: 'Mine', start_date: '2024-06-13', end_date: '2024-06-13', assignee_ids: [member.user_id] })).body
      .data;
    const intruder = client(t.app, other.token);
    const before = (await api.get(`/api/v1/events/${created.id}`)).body;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PUT', '', { name: 'Taken' }],
      ['PUT', '/status', { status: 'cancelled' }],
      ['DELETE', '', undefined],
    ] as const) {
      const call = (id: number) =>
        method === 'GET'
          ? intruder.get(`/api/v1/events/${id}${suffix}`)
          : method === 'DELETE'
            ? intruder.delete(`/api/v1/events/${id}${suffix}`)
            : intruder.put(`/api/v1/events/${id}${suffix}`, body);
      const foreign = await call(created.id);
      const absent = await call(2_000_000_000);
      assert.equal(foreign.status, 404, `${method} ${suffix}`);
      assert.deepEqual(foreign.body, absent.body);
      assert.deepEqual(foreign.body, { success: false, error: 'Event not found' });
    }
    assert.deepEqual((await api.get(`/api/v1/events/${created.id}`)).body, before);
    assert.deepEqual((await intruder.get('/api/v1/events')).body.data, []);
    assert.deepEqual((await intruder.get(`/api/v1/events?assignee_ids=${member.user_id}`)).body.data, []);
  });

  describe('list', () => {
    let list: Client;
    let e: number[];
    let job2: number;
    let req2: number;
    let a: string;
    let b: string;
    let c: string;
    const otherApi = () => client(t.app, other.token);

    before(async () => {
      const fresh = await seedWorkspace(t.db);
      list = client(t.app, fresh.token);
      const ws = fresh.workspace.id;
      [a, b, c] = [fresh.owner.user_id, (await seedUser(t.db, ws)).user_id, (await seedUser(t.db, ws)).user_id];
      job2 = await insertJob(t.db, ws, 1);
      req2 = await insertRequest(t.db, ws, 1);
      e = [];
      for (const body of [
        { name: 'Alpha', start_date: '2024-07-01', end_date: '2024-07-01', type: 'appointment', job_id: job2, assignee_ids: [a] },
        { name: 'Bravo', start_date: '2024-07-03', end_date: '2024-07-05', type: 'task', request_id: req2, assignee_ids: [b, c], status: 'completed' },
        { name: 'Charlie', description: 'night shift', start_date: '2024-07-05', end_date: '2024-07-06', assignee_ids: [], status: 'cancelled' },
        { name: 'Delta', start_date: '2024-07-10', end_date: '2024-07-10', type: 'appointment', job_id: job2, assignee_ids: [c] },
      ]) {
        const res = await list.post('/api/v1/events', body);
        assert.equal(res.status, 201);
        e.push(res.body.data.id);
      }
    });

    test('D1: newest first by default, ties by id; items carry assignee_ids, not the expansions', async () => {
      const res = await list.get('/api/v1/events');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res), [...e].reverse());
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
      assert.deepEqual(res.body.data[2].assignee_ids, [b, c].sort());
      assert.equal('assignees' in res.body.data[0], false);
      assert.equal('job' in res.body.data[0], false);
      const p2 = await list.get('/api/v1/events?per_page=3&page=2');
      assert.deepEqual(ids(p2), [e[0]]);
      assert.deepEqual(p2.body.pagination, { page: 2, per_page: 3, total_pages: 2 });
      const byName = await list.get('/api/v1/events?sort_by=start_date&sort_direction=asc');
      assert.deepEqual(ids(byName), e);
    });

    test('filters: start_date on or after, end_date on or before', async () => {
      assert.deepEqual(ids(await list.get('/api/v1/events?start_date=2024-07-03&sort_direction=asc')), [e[1], e[2], e[3]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?end_date=2024-07-05&sort_direction=asc')), [e[0], e[1]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?start_date=2024-07-02&end_date=2024-07-06&sort_direction=asc')), [e[1], e[2]]);
    });

    test('A130: ends_on_or_after and starts_on_or_before give the events overlapping a range, whatever their length', async () => {
      // Bravo (07-03 to 07-05) crosses both edges of 07-04..07-04; Charlie (07-05 to 07-06) starts inside 07-06..07-09.
      assert.deepEqual(ids(await list.get('/api/v1/events?ends_on_or_after=2024-07-04&starts_on_or_before=2024-07-04')), [e[1]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?ends_on_or_after=2024-07-06&starts_on_or_before=2024-07-09')), [e[2]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?ends_on_or_after=2024-07-05&starts_on_or_before=2024-07-10&sort_direction=asc')), [e[1], e[2], e[3]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?ends_on_or_after=2024-07-06&sort_direction=asc')), [e[2], e[3]], 'still running or later');
      assert.deepEqual(ids(await list.get('/api/v1/events?starts_on_or_before=2024-07-01')), [e[0]]);
      // A visit longer than any widening of the range still overlaps it.
      const long = (await list.post('/api/v1/events', { name: 'Long build', start_date: '2024-05-01', end_date: '2024-09-30', all_day: true, multi_day: true })).body.data.id as number;
      try {
        assert.deepEqual(ids(await list.get('/api/v1/events?ends_on_or_after=2024-07-20&starts_on_or_before=2024-07-26')), [long]);
        assert.deepEqual(ids(await otherApi().get('/api/v1/events?ends_on_or_after=2024-07-20&starts_on_or_before=2024-07-26')), [], 'another workspace sees none');
      } finally {
        await list.delete(`/api/v1/events/${long}`);
      }
      for (const q of ['ends_on_or_after=2024-13-01', 'starts_on_or_before=today']) {
        const res = await list.get(`/api/v1/events?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.error, 'Invalid request', q);
        assert.equal(res.body.details[0].path.at(-1), q.split('=')[0], q);
      }
    });

    test('filters: job_id, request_id, type, status (comma-separated), assignee_ids (any of them), search', async () => {
      assert.deepEqual(ids(await list.get(`/api/v1/events?job_id=${job2}&sort_direction=asc`)), [e[0], e[3]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?request_id=${req2}`)), [e[1]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?type=appointment&sort_direction=asc')), [e[0], e[3]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?type=event')), [e[2]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?status=completed,cancelled&sort_direction=asc')), [e[1], e[2]]);
      assert.deepEqual(ids(await list.get('/api/v1/events?status=scheduled&sort_direction=asc')), [e[0], e[3]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?assignee_ids=${c}&sort_direction=asc`)), [e[1], e[3]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?assignee_ids=${a},${b}&sort_direction=asc`)), [e[0], e[1]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?assignee_ids=${a.toUpperCase()}`)), [e[0]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?assignee_ids=${member.user_id}`)), [], "another workspace's user matches nothing");
      assert.deepEqual(ids(await list.get('/api/v1/events?search=NIGHT')), [e[2]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?type=appointment&assignee_ids=${c}`)), [e[3]]);
    });

    test("A89: contact_id filters by the contact of the event's job or request, within the workspace", async () => {
      const mk = async (first_name: string) => (await list.post('/api/v1/contacts', { first_name, last_name: 'Client' })).body.data.id as number;
      const [jobOwner, requestOwner, nobody] = [await mk('Jo'), await mk('Rita'), await mk('Nadia')];
      await t.db.updateTable('jobs').set({ contact_id: jobOwner }).where('id', '=', job2).execute();
      await t.db.updateTable('requests').set({ contact_id: requestOwner }).where('id', '=', req2).execute();
      assert.deepEqual(ids(await list.get(`/api/v1/events?contact_id=${jobOwner}&sort_direction=asc`)), [e[0], e[3]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?contact_id=${requestOwner}`)), [e[1]]);
      assert.deepEqual(ids(await list.get(`/api/v1/events?contact_id=${nobody}`)), []);
      assert.deepEqual(ids(await list.get(`/api/v1/events?contact_id=${jobOwner}&start_date=2024-07-02`)), [e[3]]);
      // Another workspace asking for this workspace's contact sees none of its events.
      assert.deepEqual(ids(await otherApi().get(`/api/v1/events?contact_id=${jobOwner}`)), []);
    });

    test('D4: bad query parameters are 400 Invalid request with details', async () => {
      for (const q of [
        'contact_id=x',
        'contact_id=0',
        'contact_id=1.5',
        'status=done',
        'status=completed,',
        'type=meeting',
        'assignee_ids=nope',
        'start_date=2024-13-01',
        'end_date=tomorrow',
        'job_id=x',
        'sort_by=assignees',
        'per_page=101',
      ]) {
        const res = await list.get(`/api/v1/events?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.error, 'Invalid request');
        assert.ok(res.body.details.length > 0, q);
      }
    });
  });
});
