// Bulk seeding for the benchmarks: contacts in one statement per 100,000 rows
// (a recursive CTE on SQLite, generate_series on PostgreSQL), not one request each.
import { sql } from 'kysely';
import type { Database } from '../src/db/database.ts';

/**
 * `count` contacts in `workspaceId`, named First<i> Last<i>, c<i>@example.test,
 * +1555<i>, alternately lead and customer, created one second apart before now.
 * Returns the id of the newest.
 */
export async function seedContacts({ db, dialect }: Database, workspaceId: number, count: number, createdBy: string): Promise<number> {
  const base = Date.now() - count * 1000;
  const chunk = 100_000;
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    const at = (i: ReturnType<typeof sql>) =>
      dialect === 'sqlite'
        ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', (${base} + ${i} * 1000) / 1000.0, 'unixepoch')`
        : // bigint: PostgreSQL would type the parameter as the integer it is added to (milliseconds pass 2^31).
          sql`to_char(to_timestamp((${base}::bigint + ${i} * 1000) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const i = sql.ref('i');
    const select = sql`select ${workspaceId}, 'First' || i, 'Last' || i, 'c' || i || '@example.test', '+1555' || i,
        case when i % 2 = 0 then 'lead' else 'customer' end, ${createdBy}, ${at(i)}, ${at(i)}`;
    const columns = sql`(workspace_id, first_name, last_name, email, phone, type, created_by, created_at, updated_at)`;
    if (dialect === 'sqlite') {
      await sql`insert into contacts ${columns}
        with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to})
        ${select} from n`.execute(db);
    } else {
      await sql`insert into contacts ${columns} ${select} from generate_series(${from}::int, ${to}::int) as n(i)`.execute(db);
    }
  }
  // What autovacuum would do after such a load: planner statistics, and the trigram
  // index's pending entries merged (a search would otherwise read them all).
  if (dialect === 'postgres') await sql`vacuum (analyze) contacts`.execute(db);
  const newest = await db.selectFrom('contacts').select('id').where('workspace_id', '=', workspaceId).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return newest.id;
}
