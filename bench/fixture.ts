// The bench's fixture: a fresh database (BENCH_DATABASE_URL, or a new SQLite file) seeded
// with one workspace's contacts, quotes, invoices, events and hub link. Prints one JSON
// line describing it, then exits: bench/server.ts serves it from a process that never
// seeded anything, as `npm start` would (the seeding's garbage, statements and compiled
// code would otherwise be measured as the app's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { addUser } from '../src/modules/users/users.service.ts';

const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-bench-')), 'bench.db')}`;

const database = createDb(url);
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
// BENCH_QUOTES (6,000) quotes, one in four awaiting the customer (the list by status), then
// BENCH_DRAFTS more drafts: the accept scenario spends one per request, and the app and the
// floor must not run out within their rounds (they did at 6,000, capping both alike, and the
// app's half of 16,000 ran out in the last round once accepts reached 1,100 a second). By
// default enough for 2,000 accepts a second on each side through every round (the floor
// reached 1,550 on SQLite).
const listed = Number(process.env.BENCH_QUOTES ?? 6000);
const acceptSeconds = Number(process.env.BENCH_ROUNDS ?? 3) * Number(process.env.BENCH_SECONDS ?? 3);
const drafts = Number(process.env.BENCH_DRAFTS ?? Math.max(16_000, 2 * 2000 * acceptSeconds));
for (let i = 0; i < listed + drafts; i++) {
  const q = await database.db.transaction().execute((trx) =>
    createQuote(trx, workspace.id, owner.user_id, { name: `Quote ${i}`, line_items: lineItems, tax_rate: 8, status: i < listed && i % 4 === 0 ? 'awaiting_response' : 'draft' }),
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

// Invoices for the list (two pages' worth) and a second payable one: the app and the floor each pay their own.
for (let i = 0; i < 40; i++) {
  await database.db.transaction().execute((trx) =>
    createInvoice(trx, workspace.id, owner.user_id, { name: `Invoice ${i}`, contact_id: contactId, status: 'sent', tax_rate: 8, line_items: lineItems }),
  );
}
const floorPayable = await database.db.transaction().execute((trx) =>
  createInvoice(trx, workspace.id, owner.user_id, { name: 'Payable (floor)', status: 'sent', line_items: [{ name: 'Big job', quantity: 1, unitPrice: 100_000_000 }] }),
);

// The calendar: 8 weeks of events, 40 a week, each with two assignees; the bench reads the week after next.
const crew = await addUser(database.db, workspace.id, { email: 'crew@example.test', first_name: 'Cre', last_name: 'W', role: 'member' });
const monday = new Date(Date.UTC(2027, 0, 4));
const day = (d: number) => new Date(monday.getTime() + d * 86_400_000).toISOString().slice(0, 10);
for (let i = 0; i < 320; i++) {
  const d = Math.floor(i / 40) * 7 + (i % 5);
  const r = await app.inject({
    method: 'POST',
    url: '/api/v1/events',
    headers: { authorization: `Bearer ${key.token}` },
    payload: { name: `Visit ${i}`, start_date: day(d), end_date: day(d), start_time: '09:00', end_time: '10:30', type: 'appointment', assignee_ids: [owner.user_id, crew.user_id] },
  });
  if (r.statusCode !== 201) throw new Error(`seeding events: ${r.body}`);
}
const calendarWeek = { start: day(14), end: day(20) };

const described = `${JSON.stringify({ url, calendarWeek, floorPayableInvoiceId: floorPayable.id, quoteId: hubQuote.id, hubQuotePath, pdfInvoiceId: pdfInvoice.id, payableInvoiceId: payable.id, token: key.token, formKey: formKey.token, contactId, quoteIds, sentQuoteId: sent.id, workspaceId: workspace.id, dialect: database.dialect })}\n`;
// Written in full before the exit below: a pipe takes 64 KB at once, and the line (tens of
// thousands of quote ids) is longer; process.exit() would cut it.
await new Promise<void>((resolve, reject) => process.stdout.write(described, (err) => (err ? reject(err) : resolve())));
await app.close();
await database.close();
process.exit(0);
