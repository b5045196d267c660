import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dns from 'node:dns';
import path from 'node:path';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { HUGE_BYTES, type Receiver, startReceiver, verifyFieldworkSignature, verifySignature, waitFor } from './webhook-receiver.ts';

// Webhook deliveries end to end: a change through the API, the worker, a real
// HTTP subscriber on 127.0.0.1 (SPEC "Webhook events", D15, D16, D17).

type Ws = Awaited<ReturnType<typeof seedWorkspace>>;
const root = path.resolve(import.meta.dirname, '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhook delivery', () => {
  let t: TestApp;
  let rx: Receiver;
  let worker: Worker | null = null;
  before(async () => {
    t = await buildTestApp({ WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms,50ms', WEBHOOK_TIMEOUT: '200ms' });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  /**
   * For tests of what a subscriber's answer does, not of time-outs: on a crowded machine an
   * attempt can outlast 200 ms and be recorded as timed out instead of its answer.
   */
  const ROOMY = { webhookTimeout: 10_000 };
  const startWorker = (overrides: Partial<TestApp['config']> = {}) => {
    worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, ...overrides }, pollMs: 20 });
    worker.start();
    return worker;
  };
  const subscribe = async (ws: Ws, trigger_event: string, webhook_url: string) => {
    const res = await client(t.app, ws.token).post('/api/webhooks/subscribe', { trigger_event, webhook_url });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.subscription as { id: number; secret: string };
  };
  const newContact = async (ws: Ws, first_name = 'Hook') =>
    (await client(t.app, ws.token).post('/api/v1/contacts', { first_name, last_name: 'Target' })).body.data as { id: number };
  const deliveriesOf = (subscriptionId: number) =>
    t.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', subscriptionId).orderBy('id').execute();
  const attemptsOf = (deliveryId: number) => t.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
  const at = (p: string) => rx.received.filter((r) => r.path === p);

  test('a contact created through the API reaches the subscriber, signed, with the D15 headers and the SPEC payload', async () => {
    const ws = await seedWorkspace(t.db);
    const other = await seedWorkspace(t.db);
    const sub = await subscribe(ws, 'new_contact', rx.url('/ok?s=e2e'));
    await subscribe(ws, 'new_request', rx.url('/ok?s=wrong-event'));
    await subscribe(other, 'new_contact', rx.url('/ok?s=other-workspace'));
    const before = rx.received.length;
    startWorker(ROOMY);
    const contact = await newContact(ws, 'Eve');
    await waitFor('the delivery', () => rx.received.length > before);
    await new Promise((r) => setTimeout(r, 150)); // room for any wrong extra delivery to show up
    const got = rx.received.slice(before);
    assert.equal(got.length, 1, 'only the matching subscription of the same workspace is called');
    const [r] = got;
    assert.equal(r.headers['content-type'], 'application/json');
    assert.ok(verifySignature(sub.secret, r.raw, r.headers['x-service-signature']), 'X-Service-Signature is the HMAC of the body bytes');
    assert.match(String(r.headers['x-service-signature']), /^[0-9a-f]{64}$/);
    assert.equal(r.headers['x-service-event'], 'new_contact');
    assert.match(String(r.headers['x-service-delivery']), UUID);
    assert.equal(r.headers['x-service-delivery'], r.body.meta.webhook_id);
    const ts = Number(r.headers['x-service-timestamp']);
    assert.ok(Number.isInteger(ts) && Math.abs(ts - Date.now() / 1000) < 30, 'X-Service-Timestamp is Unix seconds');
    const single = (await client(t.app, ws.token).get(`/api/v1/contacts/${contact.id}`)).body.data;
    assert.deepEqual(Object.keys(r.body).sort(), ['data', 'event', 'meta', 'timestamp', 'workspace_id']);
    assert.equal(r.body.event, 'new_contact');
    assert.equal(r.body.workspace_id, ws.workspace.id);
    assert.match(r.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.deepEqual(r.body.data, single, 'D16: data is the single-GET shape');
    assert.deepEqual(r.body.meta, { webhook_id: r.body.meta.webhook_id, delivery_attempt: 1, link: `http://fieldwork.test/api/v1/contacts/${contact.id}` });
    assert.ok(!verifySignature('not-the-secret', r.raw, r.headers['x-service-signature']));
    // E15: Fieldwork-Signature signs the same second as X-Service-Timestamp with the body.
    const fws = String(r.headers['fieldwork-signature']);
    assert.match(fws, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.equal(fws.slice(2, fws.indexOf(',')), r.headers['x-service-timestamp']);
    assert.ok(verifyFieldworkSignature(sub.secret, r.raw, fws), 'Fieldwork-Signature verifies');
    assert.ok(!verifyFieldworkSignature('not-the-secret', r.raw, fws), 'another secret: refused');
    assert.ok(!verifyFieldworkSignature(sub.secret, `${r.raw} `, fws), 'another body: refused');
    assert.ok(!verifyFieldworkSignature(sub.secret, r.raw, fws, ts + 301), 'older than five minutes: refused as a replay');
    assert.ok(verifyFieldworkSignature(sub.secret, r.raw, fws, ts + 299));
    const resigned = fws.replace(/^t=\d+/, `t=${ts + 60}`); // a fresh time on an old signature
    assert.ok(!verifyFieldworkSignature(sub.secret, r.raw, resigned, ts + 60), 'a re-used signature with a new time: refused');
    assert.ok(!verifyFieldworkSignature(sub.secret, r.raw, undefined));

    await waitFor('the delivered status', async () => (await deliveriesOf(sub.id))[0]?.status === 'delivered');
    const [d] = await deliveriesOf(sub.id);
    assert.equal(d.webhook_id, r.body.meta.webhook_id);
    assert.equal(d.attempts, 1);
    assert.equal(d.last_status_code, 200);
    assert.ok(d.delivered_at);
    const listed = (await client(t.app, ws.token).get('/api/webhooks/list?trigger_event=new_contact')).body.subscriptions[0];
    assert.ok(listed.last_triggered_at, 'last_triggered_at is set once the subscription fires');
  });

  test('a subscriber answering 500 gets 5 attempts on the schedule, the same webhook_id, then the delivery is failed', async () => {
    const ws = await seedWorkspace(t.db);
    const sub = await subscribe(ws, 'new_contact', rx.url('/fail'));
    startWorker(ROOMY);
    const contact = await newContact(ws);
    await waitFor('the failed status', async () => (await deliveriesOf(sub.id))[0]?.status === 'failed', 15_000);
    const mine = at('/fail').filter((r) => r.body.data.id === contact.id);
    assert.equal(mine.length, 5);
    assert.deepEqual(
      mine.map((r) => r.body.meta.delivery_attempt),
      [1, 2, 3, 4, 5],
    );
    assert.equal(new Set(mine.map((r) => r.body.meta.webhook_id)).size, 1, 'meta.webhook_id is the same on every attempt');
    assert.equal(new Set(mine.map((r) => r.headers['x-service-delivery'])).size, 1);
    for (const r of mine) assert.ok(verifySignature(sub.secret, r.raw, r.headers['x-service-signature']), 'each attempt is signed anew');
    const [d] = await deliveriesOf(sub.id);
    assert.equal(d.attempts, 5);
    assert.equal(d.last_status_code, 500);
    assert.equal(d.next_attempt_at, null);
    const attempts = await attemptsOf(d.id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status_code, a.error]),
      [1, 2, 3, 4, 5].map((n) => [n, 500, 'HTTP 500']),
    );
    // No sixth attempt comes on its own.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(at('/fail').filter((r) => r.body.data.id === contact.id).length, 5);
  });

  test('a subscriber that hangs is cut off at WEBHOOK_TIMEOUT, and the worker keeps delivering meanwhile', async () => {
    const ws = await seedWorkspace(t.db);
    const hang = await subscribe(ws, 'new_contact', rx.url('/hang'));
    const ok = await subscribe(ws, 'new_contact', rx.url('/ok?s=beside-hang'));
    startWorker();
    const contact = await newContact(ws);
    const started = Date.now();
    await waitFor('the other subscriber', () => rx.received.some((r) => r.path === '/ok' && r.body.data.id === contact.id));
    assert.ok(Date.now() - started < 1000, 'the hanging subscriber does not hold the other one back');
    await waitFor('the first attempt to time out', async () => (await attemptsOf((await deliveriesOf(hang.id))[0].id)).length >= 1);
    const [first] = await attemptsOf((await deliveriesOf(hang.id))[0].id);
    assert.equal(first.status_code, null);
    assert.match(first.error!, /timed out after 200 ms/);
    assert.ok(first.duration_ms >= 150 && first.duration_ms < 1500, `took ${first.duration_ms} ms`);
    assert.equal((await deliveriesOf(ok.id))[0].status, 'delivered');
    await waitFor('all five timeouts', async () => (await deliveriesOf(hang.id))[0].status === 'failed', 15_000);
  });

  test('a connection refused is a failed attempt with its error, retried like any other', async () => {
    const ws = await seedWorkspace(t.db);
    const sub = await subscribe(ws, 'new_contact', 'http://127.0.0.1:1/nothing-listens-here');
    startWorker(ROOMY);
    await newContact(ws);
    await waitFor('two attempts', async () => ((await deliveriesOf(sub.id))[0]?.attempts ?? 0) >= 2);
    const [d] = await deliveriesOf(sub.id);
    assert.equal(d.last_status_code, null);
    assert.match(d.last_error!, /ECONNREFUSED/);
  });

  test('a redirect is not followed: the 302 is a failed attempt and its target is never called', async () => {
    const ws = await seedWorkspace(t.db);
    const sub = await subscribe(ws, 'new_contact', rx.url('/redirect'));
    startWorker(ROOMY);
    const contact = await newContact(ws);
    await waitFor('an attempt', async () => ((await deliveriesOf(sub.id))[0]?.attempts ?? 0) >= 1);
    const [d] = await deliveriesOf(sub.id);
    assert.equal(d.last_status_code, 302);
    assert.match(d.last_error!, /redirects are not followed/);
    assert.notEqual(d.status, 'delivered');
    await worker!.stop();
    assert.ok(at('/redirect').some((r) => r.body.data.id === contact.id));
    assert.ok(!at('/ok').some((r) => r.body?.data?.id === contact.id), 'the Location was never requested');
  });

  test('a 50 MB answer is not read: the attempt counts its status, the connection is dropped, the worker goes on', async () => {
    const ws = await seedWorkspace(t.db);
    const huge = await subscribe(ws, 'new_contact', rx.url('/huge'));
    const ok = await subscribe(ws, 'new_contact', rx.url('/ok?s=after-huge'));
    startWorker();
    const heapBefore = process.memoryUsage().rss;
    const contact = await newContact(ws);
    await waitFor('the huge delivery', async () => (await deliveriesOf(huge.id))[0]?.status === 'delivered');
    await waitFor('the other delivery', async () => (await deliveriesOf(ok.id))[0]?.status === 'delivered');
    await waitFor('the huge answer to be cut off', () => rx.hugeBytesWritten.length > 0);
    assert.ok(rx.hugeBytesWritten[0] < HUGE_BYTES / 4, `only ${rx.hugeBytesWritten[0]} bytes went out before the worker hung up`);
    assert.ok(process.memoryUsage().rss - heapBefore < 40 * 1024 * 1024, 'nothing close to 50 MB was held');
    const [d] = await deliveriesOf(huge.id);
    assert.equal(d.last_status_code, 200);
    // And later deliveries still flow.
    const next = await newContact(ws);
    await waitFor('a later delivery', () => at('/ok').some((r) => r.body.data.id === next.id));
    assert.ok(contact.id < next.id);
  });

  test('connect-time guard: a host subscribed while private URLs were allowed is never called once they are not', async () => {
    const ws = await seedWorkspace(t.db);
    // Subscribed through an app that allows private URLs (tests do), by name and by address.
    const byName = await subscribe(ws, 'new_contact', `http://localhost:${rx.port}/ok?s=by-name`);
    const byAddress = await subscribe(ws, 'new_contact', rx.url('/ok?s=by-address'));
    const before = rx.received.length;
    startWorker({ webhookAllowPrivateUrls: false });
    await newContact(ws);
    await waitFor(
      'both attempts',
      async () => ((await deliveriesOf(byName.id))[0]?.attempts ?? 0) >= 1 && ((await deliveriesOf(byAddress.id))[0]?.attempts ?? 0) >= 1,
    );
    await worker!.stop();
    assert.equal(rx.received.length, before, 'the subscriber was never reached');
    const [n] = await deliveriesOf(byName.id);
    const [a] = await deliveriesOf(byAddress.id);
    assert.equal(n.last_status_code, null);
    assert.match(n.last_error!, /localhost resolves to a private address, 127\.0\.0\.1 \(WEBHOOK_ALLOW_PRIVATE_URLS is false\)/);
    assert.match(a.last_error!, /127\.0\.0\.1 is a private address/);
  });

  test('an unsubscribed subscription gets nothing more; a delivery already queued for it is dropped, not sent', async () => {
    const ws = await seedWorkspace(t.db);
    const unsubscribe = async (id: number) =>
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/api/webhooks/unsubscribe',
          payload: { subscription_id: id },
          headers: { authorization: `Bearer ${ws.token}` },
        })
      ).statusCode;
    const queued = await subscribe(ws, 'new_contact', rx.url('/ok?s=queued'));
    const later = await subscribe(ws, 'new_contact', rx.url('/ok?s=later'));
    const first = await newContact(ws);
    // Fan out only (no delivery slots): the deliveries exist, nothing is sent yet.
    await new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, concurrency: 0 }).tick();
    assert.equal((await deliveriesOf(queued.id)).length, 1);
    assert.equal(await unsubscribe(queued.id), 200);
    const w = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config });
    await w.tick();
    await w.drain();
    const [dropped] = await deliveriesOf(queued.id);
    assert.equal(dropped.status, 'failed');
    assert.equal(dropped.attempts, 0);
    assert.equal(dropped.last_error, 'Subscription removed');
    assert.ok(!rx.received.some((r) => r.raw.includes('s=queued') || (r.path === '/ok' && r.body.meta.webhook_id === dropped.webhook_id)));
    assert.equal((await deliveriesOf(later.id))[0].status, 'delivered');
    assert.ok(rx.received.some((r) => r.body?.data?.id === first.id));

    assert.equal(await unsubscribe(later.id), 200);
    const second = await newContact(ws);
    await w.tick();
    await w.drain();
    assert.equal((await deliveriesOf(later.id)).length, 1, 'no delivery is made for a removed subscription');
    assert.ok(!rx.received.some((r) => r.body?.data?.id === second.id));
  });

  test('graceful stop: the attempt in flight finishes and nothing is left held', async () => {
    const ws = await seedWorkspace(t.db);
    const sub = await subscribe(ws, 'new_contact', rx.url('/slow'));
    rx.slowMs = 150;
    const w = startWorker(ROOMY); // the 150 ms answer must not be cut off at the suite's 200 ms on a crowded machine
    await newContact(ws);
    await waitFor('the request to arrive', () => rx.received.some((r) => r.path === '/slow'));
    await w.stop();
    worker = null;
    const [d] = await deliveriesOf(sub.id);
    assert.equal(d.status, 'delivered', 'the attempt in flight was finished, not dropped');
    assert.equal(d.locked_by, null);
    const held = await t.db.selectFrom('outbox').select('id').where('locked_by', 'is not', null).execute();
    assert.deepEqual(held, []);
  });

  describe('fieldwork webhook deliveries | redeliver', () => {
    const cli = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(root, 'bin', 'fieldwork.js'), ...args],
          { cwd: root, env: { ...process.env, DATABASE_URL: t.url } },
          (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        );
      });
    const json = async (args: string[]) => {
      const r = await cli([...args, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim().split('\n').length, 1);
      return JSON.parse(r.stdout);
    };

    test('the delivery log, filtered by subscription and status, then one more attempt of a failed delivery', async () => {
      const ws = await seedWorkspace(t.db);
      const failing = await subscribe(ws, 'new_contact', rx.url('/fail'));
      const fine = await subscribe(ws, 'new_contact', rx.url('/ok?s=cli'));
      startWorker();
      const contact = await newContact(ws);
      await waitFor(
        'both deliveries to finish',
        async () => (await deliveriesOf(failing.id))[0]?.status === 'failed' && (await deliveriesOf(fine.id))[0]?.status === 'delivered',
        15_000,
      );
      await worker!.stop();
      worker = null;

      const all = await json(['webhook', 'deliveries', '--workspace', String(ws.workspace.id)]);
      assert.equal(all.deliveries.length, 2);
      for (const d of all.deliveries) {
        assert.deepEqual(Object.keys(d).sort(), [
          'attempts',
          'created_at',
          'delivered_at',
          'event',
          'id',
          'last_error',
          'last_status_code',
          'next_attempt_at',
          'status',
          'subscription_id',
          'webhook_id',
        ]);
      }
      const failed = await json(['webhook', 'deliveries', '--workspace', String(ws.workspace.id), '--status', 'failed']);
      assert.equal(failed.deliveries.length, 1);
      const f = failed.deliveries[0];
      assert.deepEqual(
        {
          subscription_id: f.subscription_id,
          event: f.event,
          status: f.status,
          attempts: f.attempts,
          last_status_code: f.last_status_code,
          last_error: f.last_error,
        },
        { subscription_id: failing.id, event: 'new_contact', status: 'failed', attempts: 5, last_status_code: 500, last_error: 'HTTP 500' },
      );
      assert.match(f.webhook_id, UUID);
      const bySub = await json(['webhook', 'deliveries', '--workspace', String(ws.workspace.id), '--subscription', String(fine.id)]);
      assert.deepEqual(
        bySub.deliveries.map((d: { status: string }) => d.status),
        ['delivered'],
      );
      assert.equal(bySub.deliveries[0].delivered_at !== null, true);
      const withLog = await json(['webhook', 'deliveries', '--workspace', String(ws.workspace.id), '--status', 'failed', '--attempts']);
      assert.deepEqual(
        withLog.deliveries[0].attempt_log.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
        [
          [1, 500],
          [2, 500],
          [3, 500],
          [4, 500],
          [5, 500],
        ],
      );
      const none = await json(['webhook', 'deliveries', '--workspace', String(ws.workspace.id), '--status', 'pending']);
      assert.deepEqual(none.deliveries, []);

      // redeliver: one more attempt, same webhook_id, delivery_attempt 6; still 500 -> failed again, no seventh.
      const re = await json(['webhook', 'redeliver', String(f.id)]);
      assert.equal(re.delivery.id, f.id);
      assert.equal(re.delivery.status, 'pending');
      assert.equal(re.delivery.webhook_id, f.webhook_id);
      startWorker();
      await waitFor(
        'the sixth attempt',
        async () => (await deliveriesOf(failing.id))[0].attempts === 6 && (await deliveriesOf(failing.id))[0].status === 'failed',
      );
      await new Promise((r) => setTimeout(r, 300));
      const mine = at('/fail').filter((r) => r.body.data.id === contact.id);
      assert.deepEqual(
        mine.map((r) => r.body.meta.delivery_attempt),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(new Set(mine.map((r) => r.body.meta.webhook_id)).size, 1);

      // A delivered one can be sent again too.
      const d = bySub.deliveries[0];
      await json(['webhook', 'redeliver', String(d.id)]);
      await waitFor('the redelivery', () => at('/ok').filter((r) => r.body.meta.webhook_id === d.webhook_id).length === 2);
      const copies = at('/ok').filter((r) => r.body.meta.webhook_id === d.webhook_id);
      assert.deepEqual(
        copies.map((r) => r.body.meta.delivery_attempt),
        [1, 2],
      );
    });

    test('errors: unknown delivery or workspace, bad status', async () => {
      const r = await cli(['webhook', 'redeliver', '2000000000', '--json']);
      assert.notEqual(r.code, 0);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /delivery 2000000000 not found/);
      const w = await cli(['webhook', 'deliveries', '--workspace', '2000000000', '--json']);
      assert.notEqual(w.code, 0);
      assert.match(w.stderr, /workspace 2000000000 not found/);
      const s = await cli(['webhook', 'deliveries', '--workspace', '1', '--status', 'lost', '--json']);
      assert.notEqual(s.code, 0);
      assert.equal(s.stdout, '');
    });
  });
});

describe('D17: a name that resolves publicly at subscribe time and privately at connect time is never called', () => {
  let t: TestApp;
  let rx: Receiver;
  before(async () => {
    t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_TIMEOUT: '500ms' });
    rx = await startReceiver();
  });
  after(async () => {
    mock.restoreAll();
    await rx.close();
    await t.close();
  });

  test('DNS rebinding: checked again by the lookup the socket uses', async () => {
    const ws = await seedWorkspace(t.db);
    const host = 'rebind.example.test';
    const answer = { address: '93.184.215.14', family: 4 }; // public while subscribing
    const realLookup = dns.lookup;
    const realPromise = dns.promises.lookup as unknown as (...a: unknown[]) => unknown;
    mock.method(dns.promises, 'lookup', async (name: string, ...rest: unknown[]) => (name === host ? [answer] : realPromise(name, ...rest)));
    const res = await client(t.app, ws.token).post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: `http://${host}:${rx.port}/ok` });
    assert.equal(res.status, 201, JSON.stringify(res.body));

    // Now the name points at the receiver on 127.0.0.1.
    mock.method(dns, 'lookup', (name: string, options: dns.LookupOptions, callback: (...a: unknown[]) => void) => {
      if (name !== host) return (realLookup as (...a: unknown[]) => void)(name, options, callback);
      const rebound = { address: '127.0.0.1', family: 4 };
      return options.all ? callback(null, [rebound]) : callback(null, rebound.address, rebound.family);
    });
    await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'Re', last_name: 'Bind' });
    const w = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config });
    await w.tick();
    await w.drain();
    const [d] = await t.db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(d.attempts, 1);
    assert.equal(d.status, 'pending', 'a refused attempt is retried later like any failure');
    assert.equal(d.last_status_code, null);
    assert.equal(d.last_error, `${host} resolves to a private address, 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_URLS is false)`);
    assert.equal(rx.received.length, 0, 'the receiver was never called');
  });
});
