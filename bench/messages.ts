// `npx tsx bench/messages.ts`: customer emails per second from one worker to a
// local SMTP server. BENCH_MESSAGES queued emails are committed first; the clock
// runs from the worker's start until the SMTP server has taken every one (claims,
// SMTP conversations and status writes included). The SMTP server (npm
// smtp-server) runs in its own process. BENCH_DATABASE_URL=postgres://... runs it
// on PostgreSQL (a scratch database is created and dropped).
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { queueMessage } from '../src/outbox/messages.ts';
import { Worker } from '../src/outbox/worker.ts';
import { scratchDatabase, startReceiver } from './scratch.ts';

const count = Number(process.env.BENCH_MESSAGES ?? 1000);
const { url, cleanup } = await scratchDatabase();

const smtp = await startReceiver(
  `const { SMTPServer } = require('smtp-server'); let n = 0;
   const s = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
     onData(stream, _session, done) { stream.resume(); stream.on('end', () => { n++; done(); }); } });
   s.listen(0, '127.0.0.1', () => console.log(s.server.address().port));
   setInterval(() => console.log('count ' + n), 50);`,
);

const database = createDb(url);
await migrate(database);
const { db } = database;
const { workspace } = await createWorkspace(db, { name: 'Bench', owner: { email: 'bench@example.test', first_name: 'B', last_name: 'Ench' } });
// A quote email of the default template's size.
const text = `Hello Ada,\n\nBench has sent you quote #12.\n\nKitchen refit\nTotal: $1,234.50\nDate: November 22, 2026\n\n${'Thank you for asking us. '.repeat(20)}\n\nBench`;
await db.transaction().execute(async (trx) => {
  for (let i = 1; i <= count; i++) {
    await queueMessage(trx, workspace.id, {
      channel: 'email',
      type: 'quote_to_customer',
      module_type: 'quote',
      module_id: i,
      contact_id: i,
      recipient: `c${i}@example.test`,
      subject: `Quote #${i} from Bench`,
      body_text: text,
      body_html: `<p>${text.replace(/\n/g, '<br>')}</p>`,
    });
  }
});

const config = loadConfig({ ...process.env, DATABASE_URL: url, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
const worker = new Worker({ db, dialect: database.dialect, config, pollMs: 20 });
const started = performance.now();
worker.start();
while (smtp.received() < count) await new Promise((r) => setTimeout(r, 10));
const seconds = (performance.now() - started) / 1000;
await worker.stop();
const unsent = await db.selectFrom('messages').select('id').where('status', '!=', 'sent').execute();

smtp.child.kill();
await database.close();
await cleanup();

console.log(
  `customer emails (${database.dialect}, one worker, concurrency 32): ${count} emails in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)} emails/s` +
    (unsent.length ? ` (${unsent.length} not yet marked sent when the SMTP server had them all)` : ''),
);
