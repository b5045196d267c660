// `npx tsx bench/webhooks.ts`: webhook deliveries per second from one worker to a
// local subscriber. BENCH_EVENTS events are committed to the
// outbox first; the clock runs from the worker's start until the subscriber has
// every one (fan-out, claims, signed POSTs, attempt log and status writes included).
// The subscriber runs in its own process, answering 200 at once.
// BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL (a scratch database is created and dropped).
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { emit } from '../src/outbox/emit.ts';
import { Worker } from '../src/outbox/worker.ts';
import { scratchDatabase, startReceiver } from './scratch.ts';

const events = Number(process.env.BENCH_EVENTS ?? 2000);

const { url, cleanup } = await scratchDatabase();

// The subscriber, in its own process: counts POSTs, answers 200.
const receiver = await startReceiver(
  `const http = require('node:http'); let n = 0;
   const s = http.createServer((q, r) => { q.resume(); q.on('end', () => { n++; r.end('ok'); }); });
   s.keepAliveTimeout = 60000;
   s.listen(0, '127.0.0.1', () => console.log(s.address().port));
   setInterval(() => console.log('count ' + n), 50);`,
);
const port = receiver.port;

const database = createDb(url);
await migrate(database);
const { db } = database;
const { workspace } = await createWorkspace(db, { name: 'Bench', owner: { email: 'bench@example.test', first_name: 'B', last_name: 'Ench' } });
await createKey(db, { workspaceId: workspace.id, type: 'general' });
await db
  .insertInto('webhook_subscriptions')
  .values({
    workspace_id: workspace.id,
    trigger_event: 'new_contact',
    webhook_url: `http://127.0.0.1:${port}/hook`,
    secret: randomBytes(32).toString('hex'),
    is_active: 1,
    created_at: new Date().toISOString(),
  })
  .execute();
// A contact-sized `data`, as the single GET returns it.
await db.transaction().execute(async (trx) => {
  for (let i = 1; i <= events; i++) {
    const contact = {
      id: i,
      workspace_id: workspace.id,
      first_name: `First${i}`,
      last_name: 'Bench',
      email: `c${i}@example.test`,
      phone: '+15555550100',
      company: 'Bench Co',
      type: 'customer',
      info: null,
      custom_fields: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    };
    await emit(trx, workspace.id, 'new_contact', 'contacts', contact);
  }
});

const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', DATABASE_URL: url });
const worker = new Worker({ db, dialect: database.dialect, config, pollMs: 20 });
const started = performance.now();
worker.start();
while (receiver.received() < events) await new Promise((r) => setTimeout(r, 10));
const seconds = (performance.now() - started) / 1000;
await worker.stop();
const failed = await db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'delivered').execute();

receiver.child.kill();
await database.close();
await cleanup();

const rate = Math.round(events / seconds);
console.log(
  `webhook deliveries (${database.dialect}, one worker, concurrency 32): ${events} events in ${seconds.toFixed(2)} s = ${rate} deliveries/s` +
    (failed.length ? ` (${failed.length} not yet marked delivered when the subscriber had them all)` : ''),
);
