// RETENTION pruning over N old delivered webhook deliveries (default 1,000,000),
// timed, with API latency measured before and during the pass (docs/scaling.md).
//   DATABASE_URL=sqlite:/tmp/ret.db npx tsx bench/retention.ts [N]
import fs from 'node:fs';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { pruneOld } from '../src/outbox/retention.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const url = process.env.DATABASE_URL ?? 'sqlite:/tmp/fieldwork-retention-bench.db';
if (url.startsWith('sqlite:')) fs.rmSync(url.slice(7), { force: true });
const database = createDb(url);
await migrate(database);
const { db } = database;
const { workspace } = await createWorkspace(db, { name: 'Bench', currency: 'usd', owner: { email: 'o@bench.test', first_name: 'O', last_name: 'B' } });
const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });
const sub = await db
  .insertInto('webhook_subscriptions')
  .values({ workspace_id: workspace.id, trigger_event: 'new_contact', webhook_url: 'http://127.0.0.1:9/', secret: 's', is_active: 1, created_at: new Date().toISOString() })
  .returning('id')
  .executeTakeFirstOrThrow();
const old = new Date(Date.now() - 60 * 86_400_000).toISOString();
let t0 = Date.now();
const series = database.dialect === 'postgres' ? sql`select generate_series(1, ${N}) as n` : sql`with recursive s(n) as (select 1 union all select n + 1 from s where n < ${N}) select n from s`;
await sql`insert into outbox (workspace_id, event, payload, created_at, processed_at)
  select ${workspace.id}, 'contact.created', '{}', ${old}, ${old} from (${series}) x`.execute(db);
await sql`insert into webhook_deliveries (workspace_id, subscription_id, outbox_id, event, webhook_id, status, attempts, max_attempts, created_at, updated_at, delivered_at)
  select workspace_id, ${sub.id}, id, event, 'w' || id, 'delivered', 1, 5, ${old}, ${old}, ${old} from outbox`.execute(db);
await sql`insert into webhook_attempts (workspace_id, delivery_id, attempt, status_code, duration_ms, worker, created_at)
  select workspace_id, id, 1, 200, 5, 'bench', ${old} from webhook_deliveries`.execute(db);
console.log(`seeded ${N} outbox rows, deliveries and attempts in ${Date.now() - t0} ms`);

const app = await buildApp({ config: loadConfig({ DATABASE_URL: url, API_RATE_LIMIT: '1000000/1m' }), database, logger: false });
await app.ready();
async function latencies(untilDone: () => boolean, max = Infinity) {
  const ms: number[] = [];
  while (!untilDone() && ms.length < max) {
    const s = performance.now();
    const res = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, payload: { first_name: 'L', last_name: 'T' } });
    if (res.statusCode !== 201) throw new Error(res.body);
    ms.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, 5));
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))].toFixed(1);
  return `${ms.length} creates: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${ms[ms.length - 1].toFixed(1)} ms`;
}
console.log(`before: ${await latencies(() => false, 300)}`);
let done = false;
t0 = Date.now();
const pass = pruneOld(db, database.dialect, Date.now() - 30 * 86_400_000).then((c) => {
  done = true;
  return c;
});
const during = await latencies(() => done);
const counts = await pass;
console.log(`prune: ${JSON.stringify(counts)} in ${Date.now() - t0} ms (${Math.round((counts.webhook_deliveries * 1000) / (Date.now() - t0))} deliveries/s)`);
console.log(`during: ${during}`);
await app.close();
await database.close();
