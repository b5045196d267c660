import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { claim, type ClaimSpec, release } from './claim.ts';
import { emit } from './emit.ts';

// The one claim mechanism (claim.ts): leases, expiry, release, and on
// PostgreSQL concurrent claimers that never share a row.

describe('claim', () => {
  let t: TestApp;
  let ids: number[];
  before(async () => {
    t = await buildTestApp();
    const ws = await seedWorkspace(t.db);
    for (let i = 1; i <= 60; i++) await emit(t.db, ws.workspace.id, 'new_contact', 'contacts', { id: i });
    ids = (await t.db.selectFrom('outbox').select('id').orderBy('id').execute()).map((r) => r.id);
  });
  after(() => t.close());

  const spec = (owner: string, limit: number, leaseMs = 60_000): ClaimSpec => ({
    table: 'outbox',
    owner,
    ready: () => sql`processed_at is null`,
    orderBy: 'id',
    limit,
    leaseMs,
  });

  test('a claim takes the oldest free rows and marks them; a second claimer gets the next ones', async () => {
    const a = await claim(t.db, t.database.dialect, spec('a', 10));
    assert.deepEqual(a, ids.slice(0, 10));
    const rows = await t.db.selectFrom('outbox').select(['id', 'locked_by', 'locked_until']).where('id', 'in', a).execute();
    assert.ok(rows.every((r) => r.locked_by === 'a' && r.locked_until! > new Date().toISOString()));
    const b = await claim(t.db, t.database.dialect, spec('b', 10));
    assert.deepEqual(b, ids.slice(10, 20));
    await release(t.db, 'outbox', 'a', a);
    await release(t.db, 'outbox', 'b', b);
  });

  test('a lease that ran out is claimed again; release gives rows back at once, only by their holder', async () => {
    const dead = await claim(t.db, t.database.dialect, spec('dead', 5));
    assert.deepEqual(dead, ids.slice(0, 5));
    assert.deepEqual(await claim(t.db, t.database.dialect, spec('live', 5)), ids.slice(5, 10), 'held rows are skipped');
    // The dead holder's lease runs out. Set, not waited for: a 30 ms lease that the next
    // claim had to find still held failed a CI run whose machine stalled longer than that.
    await t.db.updateTable('outbox').set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where('locked_by', '=', 'dead').execute();
    assert.deepEqual(await claim(t.db, t.database.dialect, spec('heir', 5)), ids.slice(0, 5), "the dead holder's rows come back");
    await release(t.db, 'outbox', 'dead', dead); // no longer the holder: nothing happens
    assert.deepEqual(await claim(t.db, t.database.dialect, spec('x', 5)), ids.slice(10, 15));
    await release(t.db, 'outbox', 'heir', ids.slice(0, 5));
    assert.deepEqual(await claim(t.db, t.database.dialect, spec('y', 5)), ids.slice(0, 5));
    await t.db.updateTable('outbox').set({ locked_by: null, locked_until: null }).execute();
  });

  test('rows that are not ready are never claimed', async () => {
    await t.db.updateTable('outbox').set({ processed_at: new Date().toISOString() }).where('id', 'in', ids.slice(0, 50)).execute();
    assert.deepEqual(await claim(t.db, t.database.dialect, spec('z', 100)), ids.slice(50));
    await t.db.updateTable('outbox').set({ processed_at: null, locked_by: null, locked_until: null }).execute();
  });

  test('concurrent claimers never get the same row (PostgreSQL: FOR UPDATE SKIP LOCKED)', async () => {
    const claimers = Array.from({ length: 6 }, (_, i) => `c${i}`);
    const got: number[][] = claimers.map(() => []);
    // Each claimer keeps claiming small batches until nothing is left.
    await Promise.all(
      claimers.map(async (owner, i) => {
        for (;;) {
          const batch = await claim(t.db, t.database.dialect, spec(owner, 3));
          if (!batch.length) return;
          got[i].push(...batch);
        }
      }),
    );
    const all = got.flat();
    assert.equal(new Set(all).size, all.length, 'no row was claimed twice');
    assert.deepEqual(
      [...all].sort((x, y) => x - y),
      ids,
    );
    if (t.database.dialect === 'postgres') assert.ok(got.filter((g) => g.length).length > 1, 'the work was shared');
  });
});
