import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// F222: a job's visits move it on; F221: `GET /jobs?to_invoice=true` lists Home's "Jobs to invoice".

describe("a job's visits move the job on", () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: number;

  before(async () => {
    t = await buildTestApp();
    const ws = await seedWorkspace(t.db);
    workspaceId = ws.workspace.id;
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  const newJob = async (status = 'scheduled') => (await api.post('/api/v1/jobs', { name: 'Hedges', status })).body.data.id as number;
  const visit = async (jobId: number, day = '2031-05-05') => {
    const res = await api.post('/api/v1/events', { job_id: jobId, name: 'Visit', start_date: day, end_date: day });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const jobStatus = async (id: number) => (await api.get(`/api/v1/jobs/${id}`)).body.data.status as string;
  const setVisit = (id: number, status: string) => api.put(`/api/v1/events/${id}/status`, { status });
  const jobEvents = async (id: number) =>
    (await t.db.selectFrom('outbox').select(['event', 'payload']).where('workspace_id', '=', workspaceId).where('event', '=', 'job_updated').execute()).filter(
      (r) => JSON.parse(r.payload).data.id === id,
    );

  test('a visit completed moves the job to in_progress; the job is completed when its last open visit is completed, with job_updated; not before', async () => {
    const job = await newJob();
    const [a, b, c] = [await visit(job), await visit(job, '2031-05-06'), await visit(job, '2031-05-07')];
    assert.equal((await setVisit(a, 'completed')).status, 200);
    assert.equal(await jobStatus(job), 'in_progress'); // work has begun; two visits are still open
    assert.equal((await setVisit(b, 'cancelled')).status, 200);
    assert.equal(await jobStatus(job), 'in_progress');
    const before = (await jobEvents(job)).length;
    // The last one, through PUT /events/:id (the visit's Edit form) rather than the status route.
    assert.equal((await api.put(`/api/v1/events/${c}`, { status: 'completed' })).status, 200);
    assert.equal(await jobStatus(job), 'completed');
    const after = await jobEvents(job);
    assert.equal(after.length, before + 1);
    assert.equal(JSON.parse(after.at(-1)!.payload).data.status, 'completed');
  });

  test('a visit started moves a scheduled or draft job to in_progress; completing it alone completes the job', async () => {
    for (const start of ['scheduled', 'draft']) {
      const job = await newJob(start);
      const v = await visit(job);
      assert.equal((await setVisit(v, 'in_progress')).status, 200);
      assert.equal(await jobStatus(job), 'in_progress');
      assert.equal((await setVisit(v, 'completed')).status, 200);
      assert.equal(await jobStatus(job), 'completed');
    }
  });

  test('a cancelled or completed job is never moved by its visits; a visit without a job moves nothing', async () => {
    const job = await newJob('cancelled');
    const v = await visit(job);
    await setVisit(v, 'in_progress');
    await setVisit(v, 'completed');
    assert.equal(await jobStatus(job), 'cancelled');
    const done = await newJob('completed');
    const w = await visit(done);
    await setVisit(w, 'in_progress');
    assert.equal(await jobStatus(done), 'completed');
    const alone = (await api.post('/api/v1/events', { name: 'Loose', start_date: '2031-05-05', end_date: '2031-05-05' })).body.data.id;
    assert.equal((await setVisit(alone, 'completed')).status, 200);
  });

  test('reopening a visit does not reopen its completed job', async () => {
    const job = await newJob();
    const v = await visit(job);
    await setVisit(v, 'completed');
    assert.equal(await jobStatus(job), 'completed');
    await setVisit(v, 'scheduled');
    assert.equal(await jobStatus(job), 'completed');
  });

  test('to_invoice=true lists completed jobs no invoice names; false lists every other job; a bad value is a 400', async () => {
    const uninvoiced = await newJob('completed');
    const invoiced = await newJob('completed');
    assert.equal((await api.post(`/api/v1/jobs/${invoiced}/create-invoice`)).status, 201);
    const open = await newJob('scheduled');
    const ids = async (q: string) => ((await api.get(`/api/v1/jobs?${q}&per_page=100`)).body.data as { id: number }[]).map((j) => j.id);
    const yes = await ids('to_invoice=true');
    assert.ok(yes.includes(uninvoiced));
    assert.ok(!yes.includes(invoiced) && !yes.includes(open));
    const no = await ids('to_invoice=false');
    assert.ok(no.includes(invoiced) && no.includes(open) && !no.includes(uninvoiced));
    // The same count as Home's.
    assert.equal(yes.length, (await api.get('/api/v1/home')).body.data.jobs_to_invoice);
    const bad = await api.get('/api/v1/jobs?to_invoice=maybe');
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /to_invoice/);
  });
});
