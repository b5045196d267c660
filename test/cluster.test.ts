import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../src/domain/recurrence.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { backend, buildTestApp, keyFor, outboxEvents, seedWorkspace, spawnCli, type TestApp, withinOneWindow } from './helpers.ts';
import { killAll, type Proc, type ServerProc, startServer, startWorker } from './processes.ts';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.ts';
import { type Receiver, startReceiver, waitFor } from './webhook-receiver.ts';

// Issue "Operations at scale" item 1: the scaled-out deployment as a whole, on
// PostgreSQL and Redis: two API processes (WORKER=off) behind no balancer but the
// test itself, and separate `fieldwork worker` processes. D13 numbering stays
// gap-free and unique across processes; every webhook and email goes out at least
// once and, while the workers run normally, once; SIGTERM of a worker hands its
// leases back; SIGKILL leaves them to run out and another worker finishes; the
// per-key rate limit holds across both APIs (Redis). E20: the daily run of every
// worker at once makes each recurring job's visit once.

const skip = backend !== 'postgres' ? 'PostgreSQL only: SQLite serves one process (docs/scaling.md)' : !process.env.TEST_REDIS_URL ? 'TEST_REDIS_URL not set' : false;
const RATE = 60;

describe('a scaled-out deployment: 2 APIs, 2 workers, PostgreSQL, Redis', { skip, timeout: 240_000 }, () => {
  let t: TestApp;
  let rx: Receiver;
  let smtp: SmtpReceiver;
  let apis: ServerProc[];
  const procs: Proc[] = [];
  let workerEnv: Record<string, string>;
  before(async () => {
    t = await buildTestApp();
    rx = await startReceiver();
    smtp = await startSmtpReceiver();
    // A fresh Redis namespace per run: counters from an earlier run never count here.
    const env = { DATABASE_URL: t.url, REDIS_URL: process.env.TEST_REDIS_URL!, WORKER: 'off', API_RATE_LIMIT: `${RATE}/1m`, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
    apis = await Promise.all([startServer(env), startServer(env)]);
    procs.push(...apis);
    workerEnv = {
      DATABASE_URL: t.url,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      SMTP_URL: smtp.url,
      WEBHOOK_TIMEOUT: '2s', // lease 2 x 2 s + 5 s = 9 s
      WEBHOOK_RETRY_SCHEDULE: '100ms',
      MESSAGE_TIMEOUT: '2s',
      MESSAGE_RETRY_SCHEDULE: '100ms',
      PUBLIC_URL: 'http://fieldwork.test',
    };
  });
  after(async () => {
    await killAll(procs);
    await rx.close();
    await smtp.close();
    await t.close();
  });

  /** A request to API `i` (alternating across both processes). */
  async function call(i: number, token: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${apis[i % 2].address}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  const workerIdOf = (p: Proc) => /"worker":"([0-9a-f-]{36})"/.exec(p.stdout)![1];
  const webhookIdsOf = (wsId: number) => rx.received.filter((r) => r.body?.workspace_id === wsId).map((r) => r.body.meta.webhook_id);
  const messageIdsSent = () => smtp.mails.filter((m) => m.accepted).map((m) => /^Message-ID:\s*<([^@>\s]+)@/im.exec(m.raw)?.[1] ?? '');
  const deliveriesOf = (wsId: number) => t.db.selectFrom('webhook_deliveries').select(['id', 'webhook_id', 'status', 'locked_by']).where('workspace_id', '=', wsId).execute();
  const allDelivered = async (wsId: number, n: number) => {
    const rows = await deliveriesOf(wsId);
    return rows.length === n && rows.every((d) => d.status === 'delivered');
  };
  /** A workspace subscribed to new_contact at `path` of the receiver, with one key per purpose (each stays under the rate limit). */
  async function workspace(path: string) {
    const ws = await seedWorkspace(t.db);
    const keys = { contacts: await keyFor(t.db, ws.workspace.id, 'general'), quotes: await keyFor(t.db, ws.workspace.id, 'general') };
    const sub = await call(0, ws.token, 'POST', '/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: rx.url(path) });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    return { ...ws, keys };
  }
  async function createContacts(ws: Awaited<ReturnType<typeof workspace>>, n: number, tag: string) {
    const made = await Promise.all(
      Array.from({ length: n }, (_, i) => call(i, ws.keys.contacts, 'POST', '/api/v1/contacts', { first_name: `C${i}`, last_name: tag, email: `c${i}.${tag}@customer.test` })),
    );
    for (const r of made) assert.equal(r.status, 201, JSON.stringify(r.body));
    return made.map((r) => r.body.data as { id: number });
  }

  test('E20: the daily run in every worker at once (and the CLI beside them) makes each visit exactly once', async () => {
    const ws = await seedWorkspace(t.db);
    const today = zonedDate(Date.now(), null);
    const schedule = { rrule: 'FREQ=DAILY', starts_on: today, start_time: '08:00', end_time: '09:00' };
    const jobs = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, ws.token, 'POST', '/api/v1/jobs', { name: `Route ${i}`, type: 'recurring', schedule })));
    for (const j of jobs) assert.equal(j.status, 201, JSON.stringify(j.body));
    // As if the series had last been extended 30 days ago: 600 visits to make.
    const through = addDays(today, 365 - 30);
    await t.db.updateTable('jobs').set({ generated_through: through }).where('workspace_id', '=', ws.workspace.id).execute();
    await t.db.deleteFrom('events').where('workspace_id', '=', ws.workspace.id).where('occurrence_date', '>', through).execute();
    const outboxBefore = (await outboxEvents(t.db, ws.workspace.id)).length;
    const visits = () => t.db.selectFrom('events').select(['id', 'job_id', 'occurrence_date']).where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal((await visits()).length, 20 * 336);

    // Three workers started together run their first daily pass at once; the CLI runs the same day beside them.
    const mine = await Promise.all([startWorker(workerEnv), startWorker(workerEnv), startWorker(workerEnv)]);
    try {
      const cli = spawnCli(t.url, ['daily', '--workspace', String(ws.workspace.id), '--json']);
      await waitFor('every series extended', async () => (await visits()).length >= 20 * 366, 60_000);
      const ran = await cli;
      assert.equal(ran.code, 0, ran.stderr);
      const made = await visits();
      assert.equal(made.length, 20 * 366);
      assert.equal(new Set(made.map((v) => `${v.job_id}/${v.occurrence_date}`)).size, made.length, 'one visit per job and date');
      const fired = (await outboxEvents(t.db, ws.workspace.id)).slice(outboxBefore).filter((e) => e.event === 'new_event');
      assert.equal(fired.length, 600, 'new_event once per visit made');
      assert.equal(new Set(fired.map((e) => e.data.id)).size, 600);
      const runs = await t.db.selectFrom('scheduled_runs').select('run_date').where('workspace_id', '=', ws.workspace.id).where('job', '=', 'recurring_visits').execute();
      assert.deepEqual(runs.map((r) => r.run_date), [today]);
    } finally {
      await killAll(mine);
    }
  });

  test('running normally: numbers gap-free and unique across both APIs; every webhook and email once', async () => {
    const workers = await Promise.all([startWorker(workerEnv), startWorker(workerEnv)]);
    procs.push(...workers);
    // Every delivery takes a second and both workspaces' 40 come due together: more
    // than one worker's 32 slots, so both workers take part whoever polls first.
    rx.slowMs = 1000;
    const wss = [await workspace('/slow'), await workspace('/slow')];
    const contactsOf = await Promise.all(wss.map((ws) => createContacts(ws, 20, `ws${ws.workspace.id}`)));
    for (const [w, ws] of wss.entries()) {
      const contacts = contactsOf[w];
      // Concurrent creates through both processes: D13 numbers 1..30 with no gap and no repeat.
      const quotes = await Promise.all(
        Array.from({ length: 30 }, (_, i) => call(i, ws.keys.quotes, 'POST', '/api/v1/quotes', { contact_id: contacts[i % contacts.length].id, name: `Q${i}` })),
      );
      for (const q of quotes) assert.equal(q.status, 201, JSON.stringify(q.body));
      assert.deepEqual(
        quotes.map((q) => q.body.data.number as number).sort((a, b) => a - b),
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
      // Five customer emails, queued through both APIs.
      for (let i = 0; i < 5; i++) {
        const sent = await call(i, ws.token, 'POST', '/api/v1/notifications', { type: 'quote_to_customer', module_id: quotes[i].body.data.id });
        assert.equal(sent.status, 201, JSON.stringify(sent.body));
      }
    }
    for (const ws of wss) await waitFor(`20 deliveries of workspace ${ws.workspace.id}`, () => allDelivered(ws.workspace.id, 20), 60_000);
    const queued = await t.db.selectFrom('messages').select(['message_id', 'status']).execute();
    assert.equal(queued.length, 10);
    await waitFor('10 emails sent', async () => (await t.db.selectFrom('messages').select('id').where('status', '=', 'sent').execute()).length === 10, 60_000);
    for (const ws of wss) {
      const ids = webhookIdsOf(ws.workspace.id);
      assert.equal(ids.length, 20, 'each delivery went out once');
      assert.equal(new Set(ids).size, 20);
    }
    const mails = messageIdsSent();
    assert.equal(mails.length, 10, 'each email went out once');
    assert.deepEqual(new Set(mails), new Set(queued.map((m) => m.message_id)));
    // Both workers took part.
    const attempts = await t.db.selectFrom('webhook_attempts').select('worker').distinct().execute();
    assert.deepEqual(new Set(attempts.map((a) => a.worker)), new Set(workers.map(workerIdOf)));
  });

  test('SIGTERM of a worker mid-batch: it finishes or hands back what it holds; nothing stuck, nothing sent twice', async () => {
    rx.slowMs = 300;
    const ws = await workspace('/slow');
    await createContacts(ws, 40, 'term');
    const [w1] = procs.filter((p): p is Proc => !('address' in p) && p.child.exitCode === null);
    const id = workerIdOf(w1);
    await waitFor('the first slow deliveries', () => webhookIdsOf(ws.workspace.id).length >= 3, 60_000);
    w1.child.kill('SIGTERM');
    const { code } = await w1.exited;
    assert.equal(code, 0, w1.stdout + w1.stderr);
    const held = await t.db.selectFrom('webhook_deliveries').select('id').where('locked_by', '=', id).where('locked_until', '>', new Date().toISOString()).execute();
    assert.deepEqual(held, [], 'no lease left behind by the stopped worker');
    await waitFor('the other worker to finish the batch', () => allDelivered(ws.workspace.id, 40), 90_000);
    const ids = webhookIdsOf(ws.workspace.id);
    assert.equal(ids.length, 40, 'none twice');
    assert.equal(new Set(ids).size, 40);
  });

  test('SIGKILL of a worker mid-batch: its leases run out and another worker delivers everything (at least once)', async () => {
    rx.slowMs = 300;
    procs.push(await startWorker(workerEnv));
    const ws = await workspace('/slow');
    await createContacts(ws, 40, 'kill');
    await waitFor('the first slow deliveries', () => webhookIdsOf(ws.workspace.id).length >= 3, 60_000);
    const running = procs.filter((p): p is Proc => !('address' in p) && p.child.exitCode === null);
    const victim = running[0];
    const victimId = workerIdOf(victim);
    victim.child.kill('SIGKILL');
    await victim.exited;
    // What the victim held stays locked until its lease runs out; then the other worker takes it.
    void victimId;
    await waitFor('every delivery, the stranded ones after their lease', () => allDelivered(ws.workspace.id, 40), 120_000);
    const ids = new Set(webhookIdsOf(ws.workspace.id));
    for (const d of await deliveriesOf(ws.workspace.id)) assert.ok(ids.has(d.webhook_id), `delivery ${d.id} reached the subscriber`);
  });

  test('the per-key rate limit holds across both APIs (Redis)', async () => {
    await withinOneWindow(60_000, 15_000);
    const ws = await seedWorkspace(t.db);
    const statuses: number[] = [];
    for (let i = 0; i < RATE + 2; i++) statuses.push((await call(i, ws.token, 'GET', '/api/v1/workspace')).status);
    assert.deepEqual(statuses.slice(0, RATE), Array(RATE).fill(200));
    assert.deepEqual(statuses.slice(RATE), [429, 429], 'the 61st request is refused whichever API gets it');
  });
});
