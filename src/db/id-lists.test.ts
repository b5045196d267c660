import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, seedWorkspace, type TestApp } from '../../test/helpers.ts';
import { fanOut } from '../outbox/deliveries.ts';
import { emit } from '../outbox/emit.ts';
import { inList } from './id-lists.ts';

// F256: `in` lists padded to a power of two, so the worker's batches of every size run
// a few statement texts, not one per size (each text is a statement kept prepared).
describe('in lists', () => {
  let t: TestApp;
  let workspaceId: number;
  before(async () => {
    t = await buildTestApp();
    workspaceId = (await seedWorkspace(t.db)).workspace.id;
  });
  after(() => t.close());

  test('padded to the next power of two with the last value; short lists as they are', () => {
    assert.deepEqual(inList([]), []);
    assert.deepEqual(inList([7]), [7]);
    assert.deepEqual(inList([1, 2]), [1, 2]);
    assert.deepEqual(inList([1, 2, 3]), [1, 2, 3, 3]);
    assert.deepEqual(inList([1, 2, 3, 4, 5]), [1, 2, 3, 4, 5, 5, 5, 5]);
    assert.equal(inList(Array.from({ length: 500 }, (_, i) => i)).length, 512);
  });

  test("the worker's fan-out of batches of 1 to 40 events runs 7 texts of its outbox statements, and marks every event", async () => {
    t.queries.length = 0;
    for (let n = 1; n <= 40; n++) {
      const ids: number[] = [];
      for (let i = 0; i < n; i++) {
        await emit(t.db, workspaceId, 'new_contact', 'contact', { id: i });
      }
      const rows = await t.db.selectFrom('outbox').select('id').where('processed_at', 'is', null).execute();
      ids.push(...rows.map((r) => r.id));
      await t.db.updateTable('outbox').set({ locked_by: 'w', locked_until: new Date(Date.now() + 60_000).toISOString() }).where('processed_at', 'is', null).execute();
      await fanOut(t.db, 'w', ids);
    }
    const texts = new Set(t.queries.filter((q) => /^(select .* from "outbox" where "id" in|update "outbox" set "processed_at")/.test(q)));
    assert.equal(texts.size, 2 * 7, [...texts].join('\n'));
    assert.equal((await t.db.selectFrom('outbox').select('id').where('processed_at', 'is', null).execute()).length, 0);
  });
});
