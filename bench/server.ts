// The process under load: Fieldwork on a fresh database, seeded. Prints one JSON
// line with its address (and a side listener's, for statement counts), then serves.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedContacts } from './seed.ts';
import { mintHubLink } from '../src/modules/hub/hub.service.ts';
import { createKey } from '../src/modules/keys/keys.service.ts';
import { createInvoice } from '../src/modules/invoices/invoices.service.ts';
import { createQuote } from '../src/modules/quotes/quotes.service.ts';
import { createWorkspace, setWorkspace } from '../src/modules/workspace/workspace.service.ts';

const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-bench-')), 'bench.db')}`;

// Statements the app has run: the bench reads the count before and after each
// scenario (through a side listener, outside the measured app) for round trips per request.
let statements = 0;
const side = Fastify();
side.get('/statements', async () => ({ statements }));
const sideAddress = await side.listen({ port: 0, host: '127.0.0.1' });

const database = createDb(url, { onQuery: () => statements++ });
await migrate(database);
const { workspace, owner } = await createWorkspace(database.db, { name: `Bench ${Date.now()}`, owner: { email: 'bench@example.test', first_name: 'Ben', last_name: 'Ch' } });
const key = await createKey(database.db, { workspaceId: workspace.id, type: 'general' });
const formKey = await createKey(database.db, { workspaceId: workspace.id, type: 'embed_forms' });
// BENCH_CONTACTS contacts (20,000 by default) in one workspace, seeded in bulk.
const contactId = await seedContacts(database, workspace.id, Number(process.env.BENCH_CONTACTS ?? 20_000), owner.user_id);
// Draft quotes for the accept scenario (each accept creates a job, D14), and a
// mix of statuses for the filtered list.
const lineItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, unitPrice: 10 + i, quantity: 1 + (i % 3) }));
const quoteIds: number[] = [];
for (let i = 0; i < Number(process.env.BENCH_QUOTES ?? 3000); i++) {
  const q = await database.db.transaction().execute((trx) =>
    createQuote(trx, workspace.id, owner.user_id, { name: `Quote ${i}`, line_items: lineItems, tax_rate: 8, status: i % 4 === 0 ? 'awaiting_response' : 'draft' }),
  );
  if (q.status === 'draft') quoteIds.push(q.id);
}

// A quote to send to its customer (POST /notifications): after the first send it stays
// awaiting_response, so every later one is the steady path: render, count, queue.
const sent = await database.db.transaction().execute((trx) =>
  createQuote(trx, workspace.id, owner.user_id, { name: 'Sent quote', contact_id: contactId, line_items: lineItems, tax_rate: 8 }),
);
await setWorkspace(database.db, workspace.id, { email_allowance: '100000000' });

// A rate limit far above what the run can reach: the limiter's own cost is measured, not its 429s.
const config = loadConfig({ ...process.env, API_RATE_LIMIT: '100000000/1m', FORM_RATE_LIMIT: '100000000/1h', HUB_RATE_LIMIT: '100000000/1m', LOG_LEVEL: 'warn' });
const app = await buildApp({ config, database, logger: false });
const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });

// An invoice with a balance no run can pay off, for the payment scenario (E3: each payment locks it).
const payable = await database.db.transaction().execute((trx) =>
  createInvoice(trx, workspace.id, owner.user_id, { name: 'Payable', status: 'sent', line_items: [{ name: 'Big job', quantity: 1, unitPrice: 100_000_000 }] }),
);

// E8: a quote awaiting the customer's answer, and a hub link to it (the hub's quote page scenario).
const hubQuote = await database.db.transaction().execute((trx) =>
  createQuote(trx, workspace.id, owner.user_id, { name: 'Hub quote', contact_id: contactId, line_items: lineItems, tax_rate: 8, status: 'awaiting_response' }),
);
const hubLink = await database.db.transaction().execute((trx) => mintHubLink(trx, workspace.id, contactId, config, `/quotes/${hubQuote.id}`));
const hubQuotePath = new URL(hubLink.url).pathname;

// E9: a 50-line invoice (a long description every tenth line) for the PDF scenario.
const pdfInvoice = await database.db.transaction().execute((trx) =>
  createInvoice(trx, workspace.id, owner.user_id, {
    name: 'Fifty lines',
    contact_id: contactId,
    status: 'sent',
    tax_rate: 8,
    line_items: Array.from({ length: 50 }, (_, i) => ({
      name: `Line ${i + 1}`,
      quantity: 1 + (i % 4),
      unitPrice: 12.5 + i,
      ...(i % 10 === 0 ? { description: 'Parts and labour as agreed on site. '.repeat(8) } : {}),
    })),
  }),
);

console.log(JSON.stringify({ hubQuotePath, pdfInvoiceId: pdfInvoice.id, payableInvoiceId: payable.id, side: sideAddress, app: appAddress, token: key.token, formKey: formKey.token, contactId, quoteIds, sentQuoteId: sent.id, workspaceId: workspace.id, dialect: database.dialect }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0)); // --cpu-prof writes its profile on exit
