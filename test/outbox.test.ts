import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createContact } from '../src/modules/contacts/contacts.service.ts';
import { emitAll, type OutboxEvent } from '../src/outbox/emit.ts';
import { Worker } from '../src/outbox/worker.ts';
import { backend, buildTestApp, client, planOf, seedWorkspace, type TestApp } from './helpers.ts';

// DESIGN convention 5, D16: a domain event is written with the change, in its transaction.
describe('outbox', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());

  const rows = () => t.db.selectFrom('outbox').selectAll().where('workspace_id', '=', ws.workspace.id).orderBy('id').execute();

  test('a committed create leaves exactly one new_contact row carrying the single-GET shape', async () => {
    const before = (await rows()).length;
    const api = client(t.app, ws.token);
    const created = await api.post('/api/v1/contacts', { first_name: 'Eve', last_name: 'Event' });
    const after = await rows();
    assert.equal(after.length, before + 1);
    const row = after.at(-1)!;
    assert.equal(row.event, 'new_contact');
    const payload = JSON.parse(row.payload);
    assert.equal(payload.event, 'new_contact');
    assert.equal(payload.workspace_id, ws.workspace.id);
    assert.equal(payload.link_path, `/api/v1/contacts/${created.body.data.id}`);
    assert.deepEqual(payload.data, (await api.get(`/api/v1/contacts/${created.body.data.id}`)).body.data);
  });

  test('emitAll writes its events in their order: none, the few of one request (one compiled statement per count), and more than those', async () => {
    const before = (await rows()).length;
    const batch = (n: number, from: number): OutboxEvent[] => Array.from({ length: n }, (_, i) => ({ event: 'contact_updated', resource: 'contacts', data: { id: from + i } }));
    await t.db.transaction().execute(async (trx) => {
      await emitAll(trx, ws.workspace.id, []);
      await emitAll(trx, ws.workspace.id, batch(3, 1));
      await emitAll(trx, ws.workspace.id, batch(3, 4)); // the same shape again, other values
      await emitAll(trx, ws.workspace.id, batch(12, 7));
    });
    const written = (await rows()).slice(before);
    assert.deepEqual(
      written.map((r) => JSON.parse(r.payload).link_path),
      Array.from({ length: 18 }, (_, i) => `/api/v1/contacts/${i + 1}`),
    );
    assert.ok(written.every((r) => r.event === 'contact_updated' && r.workspace_id === ws.workspace.id));
  });

  test('a rejected create leaves none', async () => {
    const before = (await rows()).length;
    const res = await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'No', last_name: 'Owner', owner_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(res.status, 422);
    assert.equal((await rows()).length, before);
  });

  test('a rolled-back transaction leaves neither the contact nor its event', async () => {
    const before = await rows();
    const contactsBefore = await t.db.selectFrom('contacts').select('id').execute();
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        await createContact(trx, ws.workspace.id, ws.owner.user_id, { first_name: 'Roll', last_name: 'Back' });
        throw new Error('boom after the emit');
      }),
      /boom/,
    );
    assert.equal((await rows()).length, before.length);
    assert.equal((await t.db.selectFrom('contacts').select('id').execute()).length, contactsBefore.length);
  });
});

// 0021: the worker claims the due rows of each queue through an index of those rows
// alone, in the claim's order; it no longer reads the finished or not-yet-due rows (55 ms
// a claim of the outbox on the event loop at 43,000 outbox rows, SQLite).
test("the worker's claims read their queue's index of due rows in order, not every row", async () => {
  const t = await buildTestApp();
  try {
    const ws = await seedWorkspace(t.db);
    await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'Claim', last_name: 'Me' });
    t.queries.length = 0;
    const worker = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config });
    assert.ok((await worker.tick()) >= 1);
    const until = "'2100-01-01T00:00:00.000Z'";
    const now = "'2000-01-01T00:00:00.000Z'";
    for (const [table, index, order] of [
      ['outbox', 'outbox_unprocessed', 'id'],
      ['webhook_deliveries', 'webhook_deliveries_next', 'next_attempt_at'],
      ['messages', 'messages_next', 'next_attempt_at'],
    ] as const) {
      const claim = t.queries.find((q) => q.trimStart().startsWith(`update "${table}" set locked_until`)) ?? '';
      // The claim as it ran, its parameters as literals: the lease's end, its owner, now
      // (twice when the queue's readiness compares a time too), how many.
      const values = (claim.match(/\$\d+|\?/g) ?? []).length === 5 ? [until, "'worker'", now, now, '200'] : [until, "'worker'", now, '200'];
      let i = 0;
      const plan = await planOf(t.db, claim.replace(/\$\d+|\?/g, () => values[i++] ?? 'null'));
      assert.equal(i, values.length, claim);
      assert.match(claim, new RegExp(`order by "${order}"`), claim);
      assert.match(plan, new RegExp(index), `${table}: ${plan}`);
      // PostgreSQL may sort the few rows it found (a bitmap scan); SQLite reads them in order.
      assert.doesNotMatch(plan, backend === 'postgres' ? new RegExp(`Seq Scan on ${table}`) : new RegExp(`TEMP B-TREE|SCAN ${table}$`, 'm'), `${table}: ${plan}`);
    }
  } finally {
    await t.close();
  }
});
