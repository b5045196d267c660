import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { backend, buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';

// docs/operations.md "When a dependency fails": PostgreSQL going away under load.
// The app reaches PostgreSQL through a TCP relay on loopback that the test cuts
// (every connection dropped, new ones refused) and restores, as a restart does,
// without touching the shared server. Requests fail with 503 while it is down,
// recover by themselves, and nothing is half-written.

/** A relay to 127.0.0.1:`target`; `down()` drops and refuses connections, `up()` accepts again. */
async function relay(target: number) {
  const sockets = new Set<net.Socket>();
  let accepting = true;
  const server = net.createServer((client) => {
    if (!accepting) return client.destroy();
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    down() {
      accepting = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      accepting = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('PostgreSQL restarted under load', { skip: backend !== 'postgres' && 'PostgreSQL only (SQLite is a file, not a server)' }, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('503 while down, recovery by itself, every 201 committed and nothing else', async () => {
    const ws = await seedWorkspace(t.db);
    const u = new URL(t.url);
    const r = await relay(Number(u.port || 5432));
    u.port = String(r.port);
    const database = createDb(u.toString());
    const app = await buildApp({ config: loadConfig({ API_RATE_LIMIT: '100000/1m' }), database, logger: false });
    const statuses: number[] = [];
    const sawOutage = () => statuses.some((s) => s === 503);
    const created: number[] = [];
    let i = 0;
    const create = async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/contacts',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ first_name: 'Restart', last_name: `N${i++}` }),
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 201) created.push(res.json().data.id);
      else assert.deepEqual(res.json(), { success: false, error: 'Service temporarily unavailable' }, res.body);
      return res.statusCode;
    };
    try {
      // Load: 4 creates in flight at a time, through up, down and up again.
      const burst = () => Promise.all([create(), create(), create(), create()]);
      for (let k = 0; k < 5; k++) await burst();
      assert.deepEqual(new Set(statuses), new Set([201]));
      const inFlight = burst();
      r.down();
      await inFlight;
      const whileDown: number[] = await Promise.all([create(), create()]);
      assert.deepEqual(whileDown, [503, 503]);
      r.up();
      // Recovers by itself: no restart of the app, no operator step.
      const until = Date.now() + 20_000;
      let last: number = 0;
      while (Date.now() < until) {
        last = await create();
        if (last === 201) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(last, 201, 'recovered');
      for (let k = 0; k < 3; k++) assert.deepEqual(await burst(), [201, 201, 201, 201]);
    } finally {
      await app.close();
      await database.close();
      await r.close();
    }
    // Nothing half-written: exactly the contacts that were answered 201 exist.
    const rows = await t.db.selectFrom('contacts').select('id').where('workspace_id', '=', ws.workspace.id).where('first_name', '=', 'Restart').execute();
    assert.deepEqual(rows.map((x) => x.id).sort((a, b) => a - b), [...created].sort((a, b) => a - b));
    // And each created contact has its event: the change and its outbox row committed together (D16).
    const events = await t.db.selectFrom('outbox').select('payload').where('workspace_id', '=', ws.workspace.id).where('event', '=', 'new_contact').execute();
    const eventIds = new Set(events.map((e) => (JSON.parse(e.payload) as { data: { id: number } }).data.id));
    for (const id of created) assert.ok(eventIds.has(id), `contact ${id} has its event`);
    assert.ok(sawOutage(), "the outage was seen");
  });
});
