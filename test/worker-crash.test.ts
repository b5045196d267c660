import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { createContact } from '../src/modules/contacts/contacts.service.ts';
import { emit } from '../src/outbox/emit.ts';
import { backend, buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { type Receiver, startReceiver, waitFor } from './webhook-receiver.ts';

// Issue 6 item 3, DESIGN "Rules that hold everywhere": `fieldwork worker` as a
// real process, killed with SIGKILL in the middle of deliveries. Every committed
// event still reaches the subscriber (duplicates allowed, same webhook_id); an
// event of a rolled-back write never does.

const root = path.resolve(import.meta.dirname, '..');
const ROLLED_BACK_ID = 1_999_999_999;

interface Proc {
  child: ChildProcess;
  stdout: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe('fieldwork worker processes', () => {
  let t: TestApp;
  let rx: Receiver;
  const procs: Proc[] = [];
  before(async () => {
    t = await buildTestApp();
    rx = await startReceiver();
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  /** `node bin/fieldwork.js worker` on the test database; resolves once it says it started. */
  async function startWorker(): Promise<Proc> {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'fieldwork.js'), 'worker'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_TIMEOUT: '1s', // lease = 2 x timeout + 5 s: a killed worker's rows come back after ~7 s
        WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms,50ms',
        PUBLIC_URL: 'http://fieldwork.test',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const p: Proc = {
      child,
      stdout: '',
      exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    };
    child.stdout!.on('data', (c: Buffer) => {
      p.stdout += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      p.stdout += c.toString();
    });
    procs.push(p);
    await waitFor('the worker to start', () => p.stdout.includes('Fieldwork worker started'), 30_000);
    return p;
  }

  async function commitContacts(workspaceId: number, userId: string, n: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const c = await t.db.transaction().execute((trx) => createContact(trx, workspaceId, userId, { first_name: 'Crash', last_name: `Test ${i}` }));
      ids.push(c.id);
    }
    return ids;
  }

  /** A write that emits and is then rolled back: its event must never be sent. */
  async function rolledBack(workspaceId: number, userId: string) {
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        await createContact(trx, workspaceId, userId, { first_name: 'Rolled', last_name: 'Back' });
        await emit(trx, workspaceId, 'new_contact', 'contacts', { id: ROLLED_BACK_ID });
        throw new Error('rolled back on purpose');
      }),
      /on purpose/,
    );
  }

  const receivedFor = (workspaceId: number) => rx.received.filter((r) => r.body?.workspace_id === workspaceId);

  test('SIGKILL in the middle of deliveries: a new worker delivers every committed event; rolled-back ones never go', async () => {
    const ws = await seedWorkspace(t.db);
    const userId = ws.owner.user_id;
    const sub = await client(t.app, ws.token).post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: rx.url('/slow') });
    assert.equal(sub.status, 201);
    rx.slowMs = 40;

    const committed = await commitContacts(ws.workspace.id, userId, 150);
    await rolledBack(ws.workspace.id, userId);

    const first = await startWorker();
    await waitFor('some deliveries', () => receivedFor(ws.workspace.id).length >= 20, 30_000);
    first.child.kill('SIGKILL');
    const { signal } = await first.exited;
    assert.equal(signal, 'SIGKILL');
    const atKill = receivedFor(ws.workspace.id).length;
    assert.ok(atKill < committed.length, `killed mid-way (${atKill} of ${committed.length} sent)`);
    const held = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('workspace_id', '=', ws.workspace.id)
      .where('locked_by', 'is not', null)
      .execute();
    assert.ok(held.length > 0, 'the killed worker died holding deliveries (their leases must run out)');

    // Changes keep committing (and rolling back) while no worker runs.
    committed.push(...(await commitContacts(ws.workspace.id, userId, 30)));
    await rolledBack(ws.workspace.id, userId);

    const second = await startWorker();
    const want = new Set(committed);
    await waitFor(
      'every committed event at the subscriber',
      () => {
        const seen = new Set(receivedFor(ws.workspace.id).map((r) => r.body.data.id));
        return [...want].every((id) => seen.has(id));
      },
      60_000,
    );
    await waitFor(
      'every delivery marked delivered',
      async () => {
        const open = await t.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('workspace_id', '=', ws.workspace.id)
          .where('status', '!=', 'delivered')
          .execute();
        return open.length === 0;
      },
      30_000,
    );
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0);

    const got = receivedFor(ws.workspace.id);
    // Duplicates are allowed, but a copy always carries its delivery's webhook_id.
    const webhookIdOf = new Map<number, string>();
    for (const r of got) {
      const known = webhookIdOf.get(r.body.data.id);
      if (known) assert.equal(r.body.meta.webhook_id, known, `contact ${r.body.data.id}: same webhook_id on every copy`);
      else webhookIdOf.set(r.body.data.id, r.body.meta.webhook_id);
    }
    assert.deepEqual(
      [...webhookIdOf.keys()].sort((a, b) => a - b),
      [...want].sort((a, b) => a - b),
      'exactly the committed events',
    );
    assert.ok(!got.some((r) => r.body.data.id === ROLLED_BACK_ID || r.body.data.first_name === 'Rolled'), 'no rolled-back event was sent');
    const deliveries = await t.db.selectFrom('webhook_deliveries').select(['id']).where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(deliveries.length, committed.length, 'one delivery per committed event');
  });

  test('SIGTERM: the worker finishes what it holds and exits 0, leaving nothing held', async () => {
    const ws = await seedWorkspace(t.db);
    await client(t.app, ws.token).post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: rx.url('/slow') });
    rx.slowMs = 400;
    const w = await startWorker();
    await commitContacts(ws.workspace.id, ws.owner.user_id, 5);
    await waitFor('requests in flight', () => receivedFor(ws.workspace.id).length >= 1, 30_000);
    w.child.kill('SIGTERM');
    const exit = await w.exited;
    assert.equal(exit.code, 0, w.stdout);
    assert.match(w.stdout, /Fieldwork worker stopped/);
    const held = await t.db.selectFrom('webhook_deliveries').select('id').where('locked_by', 'is not', null).execute();
    assert.deepEqual(held, [], 'finished or given back');
    const attempted = await t.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('workspace_id', '=', ws.workspace.id).execute();
    const started = receivedFor(ws.workspace.id).length;
    assert.equal(attempted.filter((d) => d.status === 'delivered').length, started, 'every request that went out was answered and recorded');
  });

  /** `npm start` as a process (src/main.ts) on the test database; resolves with its address. */
  async function startServer(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'main.ts')], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: t.url, PORT: '0', HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const p: Proc = { child, stdout: '', exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))) };
    child.stdout!.on('data', (c: Buffer) => {
      p.stdout += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      p.stdout += c.toString();
    });
    procs.push(p);
    await waitFor('the server to listen', () => /listening on (http:\/\/[^"\s]+)/.test(p.stdout), 30_000);
    return { ...p, address: /listening on (http:\/\/[^"\s]+)/.exec(p.stdout)![1] };
  }

  test('the server delivers with WORKER=embedded (the default) and not with WORKER=off; SIGTERM stops both cleanly', async () => {
    for (const mode of ['embedded', 'off'] as const) {
      const ws = await seedWorkspace(t.db);
      const server = await startServer({ WORKER: mode });
      const auth = { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' };
      const sub = await fetch(`${server.address}/api/webhooks/subscribe`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ trigger_event: 'new_contact', webhook_url: rx.url('/ok') }),
      });
      assert.equal(sub.status, 201);
      const created = await fetch(`${server.address}/api/v1/contacts`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ first_name: 'Main', last_name: mode }),
      });
      const contact = ((await created.json()) as { data: { id: number } }).data;
      if (mode === 'embedded') {
        await waitFor('the embedded worker', () => receivedFor(ws.workspace.id).some((r) => r.body.data.id === contact.id), 15_000);
        const link = receivedFor(ws.workspace.id)[0].body.meta.link;
        assert.equal(link, `${server.address.replace('127.0.0.1', 'localhost')}/api/v1/contacts/${contact.id}`, 'PUBLIC_URL defaults to the real port');
      } else {
        await new Promise((r) => setTimeout(r, 1000));
        assert.equal(receivedFor(ws.workspace.id).length, 0, 'WORKER=off: the API process delivers nothing');
        const [row] = await t.db.selectFrom('outbox').select(['processed_at']).where('workspace_id', '=', ws.workspace.id).execute();
        assert.equal(row.processed_at, null, 'left for `fieldwork worker`');
      }
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0, server.stdout);
    }
  });

  test('PostgreSQL: two workers share the deliveries and, running normally, never send one twice', { skip: backend !== 'postgres' }, async () => {
    const ws = await seedWorkspace(t.db);
    await client(t.app, ws.token).post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: rx.url('/slow') });
    rx.slowMs = 20;
    await Promise.all([startWorker(), startWorker()]);
    const committed = await commitContacts(ws.workspace.id, ws.owner.user_id, 300);
    await waitFor(
      'all deliveries',
      async () => {
        const open = await t.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('workspace_id', '=', ws.workspace.id)
          .where('status', '!=', 'delivered')
          .execute();
        return receivedFor(ws.workspace.id).length >= committed.length && open.length === 0;
      },
      60_000,
    );
    const got = receivedFor(ws.workspace.id);
    assert.equal(got.length, committed.length, 'each event sent exactly once');
    assert.equal(new Set(got.map((r) => r.body.meta.webhook_id)).size, committed.length);
    const workers = await t.db.selectFrom('webhook_attempts').select('worker').distinct().where('workspace_id', '=', ws.workspace.id).execute();
    assert.equal(workers.length, 2, 'both workers delivered some');
  });
});
