// `npx tsx bench/daily-run.ts`: the documents daily run (E5) over one workspace with
// 10,000 open invoices past due (and 10,000 quotes past expiry): seconds, and the
// statements it issued, which must not grow with the rows (set-based, not one per
// invoice). SQLite by default; BENCH_DATABASE_URL=postgres://... (a scratch
// database created and dropped). BENCH_ROWS sets the count. Prints one table row (bench/RESULTS.md is updated by hand).
import { sql } from 'kysely';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { runDocumentsDay } from '../src/modules/lifecycle/daily-run.ts';
import { createInvoice } from '../src/modules/invoices/invoices.service.ts';
import { createQuote } from '../src/modules/quotes/quotes.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { scratchDatabase } from './scratch.ts';
import { copyRows } from '../test/helpers.ts';

const rows = Number(process.env.BENCH_ROWS ?? 10_000);
const scratch = await scratchDatabase();
let statements = 0;
const database = createDb(scratch.url, { onQuery: () => statements++ });
await migrate(database);
const { db, dialect } = database;
const { workspace, owner } = await createWorkspace(db, { name: 'Daily run', owner: { email: 'bench@example.test' } });

// One of each made by the API's own create functions, then copied in bulk.
const items = [{ name: 'Visit', quantity: 1, unitPrice: 120 }];
const invoice = await db.transaction().execute((trx) =>
  createInvoice(trx, workspace.id, owner.user_id, { name: 'Open', status: 'sent', date: '2026-01-01', due_date: '2026-01-31', line_items: items }),
);
const quote = await db.transaction().execute((trx) =>
  createQuote(trx, workspace.id, owner.user_id, { name: 'Open', status: 'awaiting_response', expire_on: '2026-01-31', line_items: items }),
);
const copy = (table: 'invoices' | 'quotes', id: number) => copyRows(db, dialect, table, id, rows);
const seeded = Date.now();
await copy('invoices', invoice.id);
await copy('quotes', quote.id);
if (dialect === 'postgres') await sql`analyze`.execute(db);
console.error(`seeded ${rows} invoices and ${rows} quotes in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

statements = 0;
const started = process.hrtime.bigint();
const result = await db.transaction().execute((trx) => runDocumentsDay(trx, workspace.id, '2026-06-01', { publicUrl: 'http://localhost', hubLinkTtl: 86_400_000 }));
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const ran = statements;
if (result.overdue_invoices.length !== rows || result.expired_quotes.length !== rows) throw new Error(`moved ${result.overdue_invoices.length} / ${result.expired_quotes.length}`);

await database.close();
await scratch.cleanup();
const line = `| ${new Date().toISOString().slice(0, 10)} | ${dialect} | ${rows} overdue invoices + ${rows} expired quotes | ${seconds.toFixed(2)} s | ${ran} statements |`;
console.log(line);
