import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { after, afterEach, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { serveMetrics } from '../src/http/metrics.ts';
import { connectRedis } from '../src/redis.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { killAll, type Proc, startServer } from './processes.ts';

// Issue "Operations at scale" items 2, 4 and 7 and its bad input: the server as an
// operator runs it (docs/operations.md).

const stdoutLines = (p: Proc) => p.stdout.split('\n').filter(Boolean);

describe('the server process', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  const procs: Proc[] = [];
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
  });
  afterEach(() => killAll(procs));
  after(() => t.close());

  test('ready: exactly one line on stdout, with the address (and the metrics address when METRICS_PORT is set)', async () => {
    const server = await startServer({ DATABASE_URL: t.url, WORKER: 'off', METRICS_PORT: '0' });
    procs.push(server);
    const res = await fetch(`${server.address}/api/v1/contacts`, { headers: { authorization: `Bearer ${ws.token}` } });
    assert.equal(res.status, 200);
    await new Promise((r) => setTimeout(r, 200));
    const lines = stdoutLines(server);
    assert.equal(lines.length, 1, server.stdout);
    assert.match(JSON.parse(lines[0]).msg, /^Fieldwork listening on http:\/\/127\.0\.0\.1:\d+ \(links use http:\/\/localhost:\d+\); metrics on http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    // The metrics listener serves /metrics and nothing else; the API port has no /metrics.
    const scraped = await fetch(server.metrics!);
    assert.equal(scraped.status, 200);
    const text = await scraped.text();
    assert.match(text, /fieldwork_http_requests_total\{method="GET",route="\/api\/v1\/contacts",status="200"\} 1\n/);
    assert.match(text, /fieldwork_queue_due\{queue="outbox"\} \d+/);
    assert.equal((await fetch(server.metrics!.replace('/metrics', '/api/v1/contacts'))).status, 404);
    assert.equal((await fetch(`${server.address}/metrics`)).status, 404);
  });

  test('a DATABASE_URL that does not answer: one clear line on stderr, exit 1, no stack trace', async () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: `${import.meta.dirname}/..`,
      env: { ...process.env, DATABASE_URL: 'postgres://fieldwork:secret@127.0.0.1:1/nowhere', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    const errLines = r.stderr.split('\n').filter((l) => l && !/FSTDEP|trace-warnings/.test(l));
    assert.deepEqual(errLines, ['fieldwork: cannot start: database postgres://fieldwork:***@127.0.0.1:1/nowhere did not answer: connect ECONNREFUSED 127.0.0.1:1']);
  });

  test('issue 25: a malformed SMTP_URL is refused at start, by the server and by fieldwork worker, without its password', async () => {
    for (const args of [['--import', 'tsx', 'src/main.ts'], ['bin/fieldwork.js', 'worker']]) {
      const r = spawnSync(process.execPath, args, {
        cwd: `${import.meta.dirname}/..`,
        env: { ...process.env, DATABASE_URL: t.url, PORT: '0', SMTP_URL: 'mailer:secret@localhost:2525' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /SMTP_URL: "\*\*\*@localhost:2525" is not a URL like smtp:\/\/user:pass@host:587 or smtps:\/\/host:465/);
      assert.doesNotMatch(r.stderr, /secret/);
    }
    for (const good of ['smtp://u:p@127.0.0.1:2525', 'smtps://mail.example.com']) assert.equal(loadConfig({ SMTP_URL: good }).smtpUrl, good);
    assert.throws(() => loadConfig({ SMTP_URL: 'localhost:2525' }), /SMTP_URL: "localhost:2525" is not a URL/);
  });

  test('issue 25: the ready line names the address it listens on (0.0.0.0, not 127.0.0.1) and the PUBLIC_URL its links use', async () => {
    const server = await startServer({ DATABASE_URL: t.url, WORKER: 'off', HOST: '0.0.0.0', PUBLIC_URL: 'https://office.example.com' });
    procs.push(server);
    const msg = JSON.parse(stdoutLines(server)[0]).msg as string;
    assert.match(msg, /^Fieldwork listening on http:\/\/0\.0\.0\.0:\d+ \(links use https:\/\/office\.example\.com\)$/);
    assert.equal((await fetch(`http://127.0.0.1:${new URL(server.address).port}/healthz`)).status, 200);
  });

  test('SIGTERM: the request in flight is answered (no reset), new connections are refused, the process exits 0', async () => {
    const server = await startServer({ DATABASE_URL: t.url, WORKER: 'off' });
    procs.push(server);
    const url = new URL(`${server.address}/api/v1/contacts`);
    const body = JSON.stringify({ first_name: 'In', last_name: 'Flight' });
    // The body goes out in two halves with SIGTERM in between: the request is in flight.
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 500);
    });
    const res = await answered;
    assert.equal(res.status, 201, res.body);
    assert.equal(JSON.parse(res.body).data.first_name, 'In');
    const { code } = await server.exited;
    assert.equal(code, 0, server.stderr);
    assert.match(server.stdout, /SIGTERM: shutting down/);
    await assert.rejects(fetch(server.address), /fetch failed/);
  });
});

describe('metrics in process', () => {
  test('unset METRICS_PORT: no metrics at all', async () => {
    const t = await buildTestApp();
    try {
      assert.equal(t.app.metrics, undefined);
      assert.equal(t.config.metricsPort, null);
    } finally {
      await t.close();
    }
  });

  test('per route and status counts and durations, messages and deliveries by status, the due backlog', async () => {
    const t = await buildTestApp({ METRICS_PORT: '0' });
    const server = await serveMetrics(t.app.metrics!, '127.0.0.1', 0);
    try {
      const ws = await seedWorkspace(t.db);
      const api = client(t.app, ws.token);
      assert.equal((await api.post('/api/v1/contacts', { first_name: 'M', last_name: 'One' })).status, 201);
      assert.equal((await api.get('/api/v1/contacts/999999')).status, 404);
      assert.equal((await api.get('/api/v1/contacts/999998')).status, 404);
      const port = (server.address() as { port: number }).port;
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      assert.match(text, /fieldwork_http_requests_total\{method="POST",route="\/api\/v1\/contacts",status="201"\} 1\n/);
      // The route pattern, not the URL: two ids, one series.
      assert.match(text, /fieldwork_http_requests_total\{method="GET",route="\/api\/v1\/contacts\/:id",status="404"\} 2\n/);
      assert.match(text, /fieldwork_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/contacts\/:id",status="404"\} 2\n/);
      assert.match(text, /fieldwork_queue_due\{queue="outbox"\} 1\n/, 'the contact.created event waits for a worker');
      assert.match(text, /fieldwork_queue_due\{queue="webhook_deliveries"\} 0\n/);
      assert.match(text, /fieldwork_queue_due\{queue="messages"\} 0\n/);
      assert.match(text, /fieldwork_database_up 1\n/);
      await t.db
        .insertInto('messages')
        .values({ workspace_id: ws.workspace.id, channel: 'email', type: 'quote_to_customer', module_type: 'quote', module_id: 1, recipient: 'a@b.test', body_text: 'x', status: 'sent', attempts: 1, message_id: '<m@t>', created_at: 'x', updated_at: 'x' })
        .execute();
      const again = await t.app.metrics!.scrape();
      assert.match(again, /fieldwork_messages\{channel="email",status="sent"\} 1\n/);
    } finally {
      server.close();
      await t.close();
    }
  });
});

describe('Redis down', () => {
  test('rate limiting is skipped (documented: it fails open) and the API keeps serving', async () => {
    const t = await buildTestApp();
    // Nothing listens on port 1: every Redis command fails.
    const config = loadConfig({ API_RATE_LIMIT: '2/1m', REDIS_URL: 'redis://127.0.0.1:1' });
    const redis = connectRedis(config.redisUrl)!;
    redis.on('error', () => {});
    const app = await buildApp({ config, database: t.database, redis, logger: false });
    try {
      const ws = await seedWorkspace(t.db);
      const started = Date.now();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await client(app, ws.token).get('/api/v1/workspace')).status);
      assert.deepEqual(statuses, [200, 200, 200, 200]);
      assert.ok(Date.now() - started < 10_000, `4 requests took ${Date.now() - started} ms`);
    } finally {
      await app.close();
      redis.disconnect();
      await t.close();
    }
  });
});

describe('database unavailable while serving', () => {
  test('a request that needs the database answers 503 with the envelope and Retry-After, /readyz 503, /healthz 200', async () => {
    // Nothing listens on port 1: every connection attempt is refused, as while PostgreSQL restarts.
    const database = createDb('postgres://fieldwork@127.0.0.1:1/down');
    const app = await buildApp({ config: loadConfig({}), database, logger: false });
    try {
      const res = await app.inject({ url: '/api/v1/contacts', headers: { authorization: `Bearer wk_abcdefgh.${'a'.repeat(64)}` } });
      assert.equal(res.statusCode, 503, res.body);
      assert.deepEqual(res.json(), { success: false, error: 'Service temporarily unavailable' });
      assert.equal(res.headers['retry-after'], '5');
      assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
