import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { numberExistingInvoices } from '../../db/migrations/0013-invoice-money.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { buildTestApp, type Client, client, outboxEvents, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// EXTENSIONS E1 (invoice numbers) and E2 (due dates from payment terms).
describe('invoice numbers (E1) and due dates (E2)', () => {
  let t: TestApp;
  let api: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
  });
  after(() => t.close());

  test('E1: D13 numbers per workspace, in the single GET, list items and webhook data', async () => {
    const other = await seedWorkspace(t.db);
    const a1 = (await api.post('/api/v1/invoices', { name: 'One' })).body.data;
    const b1 = (await client(t.app, other.token).post('/api/v1/invoices', {})).body.data;
    const a2 = (await api.post('/api/v1/invoices', { name: 'Two' })).body.data;
    assert.deepEqual([a1.number, a2.number, b1.number], [1, 2, 1]);
    assert.equal((await api.get(`/api/v1/invoices/${a2.id}`)).body.data.number, 2);
    const list = (await api.get('/api/v1/invoices?sort_by=number&sort_direction=asc')).body.data;
    assert.deepEqual(list.map((i: { number: number }) => i.number), [1, 2]);
    assert.deepEqual((await api.get('/api/v1/invoices?search=2')).body.data.map((i: { id: number }) => i.id), [a2.id], 'searchable by number');
    const created = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'new_invoice');
    assert.deepEqual(created.map((e) => e.data.number), [1, 2]);
  });

  test('the single GET is one statement; writes answer from what they wrote', async () => {
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'L' })).body.data.id;
    const job = (await api.post('/api/v1/jobs', { name: 'Deck' })).body.data;
    const inv = (await api.post('/api/v1/invoices', { contact_id: contact, job_id: job.id })).body.data;
    t.queries.length = 0;
    const got = (await api.get(`/api/v1/invoices/${inv.id}`)).body.data;
    const statements = t.queries.filter((q) => !/"api_keys"/.test(q));
    assert.equal(statements.length, 1, statements.join('\n'));
    assert.deepEqual(got.contact, { id: contact, first_name: 'Ada', last_name: 'L' });
    assert.deepEqual(got.job, { id: job.id, number: job.number, name: 'Deck', status: 'draft' });
    assert.deepEqual(inv, got, 'the create answered the stored record');
    t.queries.length = 0;
    const put = (await api.put(`/api/v1/invoices/${inv.id}`, { name: 'Renamed' })).body.data;
    const reads = t.queries.filter((q) => /^select/i.test(q) && q.includes('from "invoices"'));
    assert.equal(reads.length, 1, `the locked read only:\n${t.queries.join("\n")}`);
    assert.deepEqual(put, (await api.get(`/api/v1/invoices/${inv.id}`)).body.data);
  });

  test('migration 0013: existing invoices numbered in creation order per workspace; the counter continues', async () => {
    const w = await seedWorkspace(t.db);
    const c = client(t.app, w.token);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.post('/api/v1/invoices', {})).body.data.id);
    // As before 0013: no numbers, no counter; created_at out of id order.
    await sql`update invoices set number = null where workspace_id = ${w.workspace.id}`.execute(t.db);
    await sql`delete from counters where workspace_id = ${w.workspace.id} and kind = 'invoices'`.execute(t.db);
    await sql`update invoices set created_at = '2020-01-01T00:00:00.000Z' where id = ${ids[2]}`.execute(t.db);
    await numberExistingInvoices(t.db);
    const rows = await t.db.selectFrom('invoices').select(['id', 'number']).where('workspace_id', '=', w.workspace.id).orderBy('number').execute();
    assert.deepEqual(rows.map((r) => r.id), [ids[2], ids[0], ids[1]]);
    assert.deepEqual(rows.map((r) => r.number), [1, 2, 3]);
    assert.equal((await c.post('/api/v1/invoices', {})).body.data.number, 4);
    assert.equal((await api.post('/api/v1/invoices', {})).body.data.number > 2, true, 'other workspaces keep their sequence');
  });

  test('E2: due_date = date + terms; explicit due_date wins; a null date is today in the workspace zone', async () => {
    const a = (await api.post('/api/v1/invoices', { date: '2025-01-20', payment_terms: 'net_30' })).body.data;
    assert.equal(a.due_date, '2025-02-19');
    const b = (await api.post('/api/v1/invoices', { date: '2025-01-20', payment_terms: 'net_30', due_date: '2025-01-25' })).body.data;
    assert.equal(b.due_date, '2025-01-25');
    assert.equal((await api.post('/api/v1/invoices', { date: '2025-02-27', payment_terms: 'net_7' })).body.data.due_date, '2025-03-06');
    assert.equal((await api.post('/api/v1/invoices', { date: '2025-02-27' })).body.data.due_date, '2025-02-27', 'due_on_receipt: 0 days');
    assert.equal((await api.post('/api/v1/invoices', { name: 'no dates' })).body.data.due_date, null, 'neither set: none');
    // Update: terms alone use the stored date; a date alone uses the stored terms.
    assert.equal((await api.put(`/api/v1/invoices/${a.id}`, { payment_terms: 'net_90' })).body.data.due_date, '2025-04-20');
    assert.equal((await api.put(`/api/v1/invoices/${a.id}`, { date: '2025-03-01' })).body.data.due_date, '2025-05-30');
    assert.equal((await api.put(`/api/v1/invoices/${a.id}`, { name: 'x' })).body.data.due_date, '2025-05-30', 'untouched');
    // A zone 14 hours ahead of UTC: "today" is its date.
    const tz = 'Pacific/Kiritimati';
    await t.db.updateTable('workspaces').set({ timezone: tz }).where('id', '=', ws.workspace.id).execute();
    const today = zonedDate(Date.now(), tz);
    const plus14 = new Date(Date.parse(`${today}T00:00:00Z`) + 14 * 86_400_000).toISOString().slice(0, 10);
    assert.equal((await api.post('/api/v1/invoices', { payment_terms: 'net_14' })).body.data.due_date, plus14);
    assert.equal((await api.post('/api/v1/invoices', { date: null, payment_terms: 'due_on_receipt' })).body.data.due_date, today);
    await t.db.updateTable('workspaces').set({ timezone: null }).where('id', '=', ws.workspace.id).execute();
  });
});
