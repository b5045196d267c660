import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { backend, buildTestApp, type TestApp } from './helpers.ts';

// Migration 0020: a status-filtered document list is one index range in D1 order, not a
// walk of every newer document in other statuses, nor a sort of the whole status.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

async function planOf(statement: string): Promise<string> {
  if (backend === 'postgres') {
    // Without statistics on a small table the planner may prefer a scan: ask it not to.
    return t.db.connection().execute(async (conn) => {
      await sql`set enable_seqscan = off`.execute(conn);
      const r = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(statement)}`.execute(conn);
      await sql`reset enable_seqscan`.execute(conn);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    });
  }
  return (await sql<{ detail: string }>`explain query plan ${sql.raw(statement)}`.execute(t.db)).rows.map((x) => x.detail).join('\n');
}

describe('lists filtered by status', () => {
  for (const [table, status] of [
    ['requests', 'new'],
    ['quotes', 'awaiting_response'],
    ['jobs', 'active'],
    ['invoices', 'sent'],
  ] as const) {
    test(`${table}: the page and its count read (workspace_id, status, created_at, id), with no sort`, async () => {
      const page = await planOf(`select id from ${table} where workspace_id = 1 and status in ('${status}') order by created_at desc, id desc limit 25 offset 0`);
      assert.match(page, new RegExp(`${table}_workspace_status_created`), page);
      assert.doesNotMatch(page, backend === 'postgres' ? /Sort/ : /TEMP B-TREE/, page);
      const count = await planOf(`select count(*) from ${table} where workspace_id = 1 and status in ('${status}')`);
      assert.match(count, new RegExp(`${table}_workspace_status_created`), count);
    });
  }
});
