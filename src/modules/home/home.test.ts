import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import * as paymentDays from '../../db/migrations/0022-payment-days.ts';
import type { DB } from '../../db/schema.ts';
import { zonedDate } from '../../domain/zoned-time.ts';
import { monthStart } from './home.service.ts';
import { buildTestApp, type Client, client, keyFor, ownerSessionToken, seedWorkspace, type TestApp } from '../../../test/helpers.ts';

// A2: GET /api/v1/home, the one operation behind the app's Home page.
describe('home', () => {
  let t: TestApp;
  let api: Client;
  let other: Client;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  let thisMonth: string;
  let lastYear: string;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    api = client(t.app, ws.token);
    other = client(t.app, (await seedWorkspace(t.db)).token);
    const today = zonedDate(Date.now(), null);
    thisMonth = `${today.slice(0, 7)}-01`;
    lastYear = `${Number(today.slice(0, 4)) - 1}-${today.slice(5, 7)}-01`; // 12 months back: just outside the window
  });
  after(() => t.close());

  const invoice = async (unitPrice: number, status: string, extra: Record<string, unknown> = {}, c = api) =>
    (await c.post('/api/v1/invoices', { name: 'Inv', status, line_items: [{ name: 'Work', unitPrice, quantity: 1 }], ...extra })).body.data as { id: number };

  test('empty workspace: zero counts, 12 empty months ending with this one, no activity beyond its own', async () => {
    const fresh = client(t.app, (await seedWorkspace(t.db)).token);
    const res = await fresh.get('/api/v1/home');
    assert.equal(res.status, 200);
    const d = res.body.data;
    assert.deepEqual([d.new_requests, d.quotes_awaiting_response, d.jobs_to_invoice, d.overdue_invoices], [0, 0, 0, { count: 0, amount_due: 0 }]);
    assert.equal(d.payments_by_month.length, 12);
    assert.equal(d.payments_by_month[11].month, thisMonth.slice(0, 7));
    assert.ok(d.payments_by_month.every((m: { amount: number }) => m.amount === 0));
    assert.deepEqual(d.activity, []);
  });

  test('counts, amount due, payments per month and activity match the seeded records; another workspace sees none of them', async () => {
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes' })).body.data;
    await api.post('/api/v1/requests', { name: 'Fix fence', contact_id: contact.id });
    await api.post('/api/v1/requests', { name: 'Gutters', contact_id: contact.id });
    const responded = (await api.post('/api/v1/requests', { name: 'Old one', contact_id: contact.id })).body.data;
    assert.equal((await api.put(`/api/v1/requests/${responded.id}`, { status: 'responded' })).status, 200);
    await api.post('/api/v1/quotes', { name: 'Q1', contact_id: contact.id, status: 'awaiting_response', line_items: [{ name: 'A', unitPrice: 10, quantity: 1 }] });
    await api.post('/api/v1/quotes', { name: 'Q2', contact_id: contact.id, status: 'draft', line_items: [{ name: 'A', unitPrice: 10, quantity: 1 }] });
    const done = (await api.post('/api/v1/jobs', { name: 'Done, invoiced', contact_id: contact.id, status: 'completed' })).body.data;
    await api.post('/api/v1/jobs', { name: 'Done, not invoiced', contact_id: contact.id, status: 'completed' });
    await api.post('/api/v1/jobs', { name: 'Open', contact_id: contact.id, status: 'scheduled' });
    await invoice(100, 'sent', { job_id: done.id });
    const late = await invoice(250.5, 'overdue', { due_date: '2020-01-31' }); // a payment makes it partially_paid, still late
    await invoice(40, 'overdue');
    assert.equal((await api.post(`/api/v1/invoices/${late.id}/payments`, { amount: 50.25, method: 'card', paid_on: thisMonth })).status, 201);
    const paid = await invoice(1000, 'sent');
    await api.post(`/api/v1/invoices/${paid.id}/payments`, { amount: 300, method: 'cash', paid_on: thisMonth });
    // Another day of the same month: the days are summed into their month.
    assert.equal((await api.post(`/api/v1/invoices/${paid.id}/payments`, { amount: 12, method: 'cash', paid_on: `${thisMonth.slice(0, 7)}-02` })).status, 201);
    await api.post(`/api/v1/invoices/${paid.id}/payments`, { amount: 7, method: 'cash', paid_on: lastYear }); // outside the 12 months

    const d = (await api.get('/api/v1/home')).body.data;
    assert.equal(d.new_requests, 2);
    assert.equal(d.quotes_awaiting_response, 1);
    assert.equal(d.jobs_to_invoice, 1);
    assert.deepEqual(d.overdue_invoices, { count: 2, amount_due: 240.25 }); // 250.50 - 50.25 + 40
    const current = d.payments_by_month[11];
    assert.deepEqual(current, { month: thisMonth.slice(0, 7), amount: 362.25, count: 3 });
    assert.equal(
      d.payments_by_month.reduce((s: number, m: { amount: number }) => s + m.amount, 0),
      362.25,
    );
    // Newest first; a payment points at its invoice.
    assert.equal(d.activity[0].event, 'payment_received');
    assert.deepEqual([d.activity[0].resource, d.activity[0].id], ['invoices', paid.id]);
    assert.equal(d.activity.length, 15);
    const allRes = await api.get('/api/v1/home?activity_limit=50');
    assert.equal(allRes.status, 200, JSON.stringify(allRes.body));
    const all = allRes.body.data.activity;
    assert.ok(all.some((a: { event: string; name: string }) => a.event === 'new_contact' && a.name === 'Dana Reyes'));
    const job = all.find((a: { event: string; name: string }) => a.event === 'new_job' && a.name === 'Open');
    assert.ok(job.number > 0);
    // Who: the payment's recorder (the key's user, the owner), by name.
    assert.deepEqual(d.activity[0].user, { id: ws.owner.user_id, first_name: 'Olive', last_name: 'Owner' });
    assert.equal((await api.get('/api/v1/home?activity_limit=3')).body.data.activity.length, 3);

    const theirs = (await other.get('/api/v1/home')).body.data;
    assert.deepEqual([theirs.new_requests, theirs.quotes_awaiting_response, theirs.jobs_to_invoice, theirs.overdue_invoices.count, theirs.activity.length], [0, 0, 0, 0, 0]);
  });

  test('scopes: each section needs its read scope (null without), activity only of readable resources; no read scope: 403', async () => {
    const jobsOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['jobs:read']));
    const d = (await jobsOnly.get('/api/v1/home')).body.data;
    assert.equal(d.jobs_to_invoice, 1);
    assert.deepEqual([d.new_requests, d.quotes_awaiting_response, d.overdue_invoices, d.payments_by_month], [null, null, null, null]);
    assert.ok(d.activity.length > 0 && d.activity.every((a: { resource: string }) => a.resource === 'jobs'));
    const writeOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:write']));
    const refused = await writeOnly.get('/api/v1/home');
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /^Insufficient permissions\. Required scope: one of /);
  });

  // payment_days (0022) against the payments themselves: each workspace and day, cents
  // and count, summed over PostgreSQL's slots (days whose payments are all gone sum to 0).
  const daysOf = async (db: Kysely<DB>, table: 'payment_days' | 'invoice_payments') => {
    const q =
      table === 'payment_days'
        ? sql<{ k: string }>`select workspace_id || ' ' || paid_on || ' ' || sum(cents) || ' ' || sum(n) as k from payment_days group by workspace_id, paid_on having sum(n) <> 0`
        : sql<{ k: string }>`select workspace_id || ' ' || paid_on || ' ' || sum(amount_cents) || ' ' || count(*) as k from invoice_payments group by workspace_id, paid_on`;
    return (await q.execute(db)).rows.map((r) => r.k).sort();
  };

  test('payments by month follow payments recorded at once and deleted, and go with their workspace (payment_days, kept by triggers)', async () => {
    const seeded = await seedWorkspace(t.db);
    const fresh = client(t.app, seeded.token);
    const month = async () => (await fresh.get('/api/v1/home')).body.data.payments_by_month[11] as { amount: number; count: number };
    const a = await invoice(1000, 'sent', {}, fresh);
    const b = await invoice(50, 'sent', {}, fresh);
    // Ten at once: on PostgreSQL, from several connections into the day's slots.
    const paid = await Promise.all(Array.from({ length: 10 }, () => fresh.post(`/api/v1/invoices/${a.id}/payments`, { amount: 1.5, method: 'card', paid_on: thisMonth })));
    assert.deepEqual(paid.map((r) => r.status), Array(10).fill(201));
    await fresh.post(`/api/v1/invoices/${b.id}/payments`, { amount: 10, method: 'cash', paid_on: `${thisMonth.slice(0, 7)}-02` });
    assert.deepEqual(await month(), { month: thisMonth.slice(0, 7), amount: 25, count: 11 });
    assert.equal((await fresh.delete(`/api/v1/invoices/${a.id}/payments/${paid[0].body.data.id}`)).status, 200);
    assert.deepEqual(await month(), { month: thisMonth.slice(0, 7), amount: 23.5, count: 10 });
    assert.deepEqual(await daysOf(t.db, 'payment_days'), await daysOf(t.db, 'invoice_payments'));
    // No route edits a payment, but an edit made in SQL moves its day too.
    await t.db.updateTable('invoice_payments').set({ paid_on: `${thisMonth.slice(0, 7)}-03`, amount_cents: 400 }).where('id', '=', paid[1].body.data.id).execute();
    assert.deepEqual(await month(), { month: thisMonth.slice(0, 7), amount: 26, count: 10 });
    assert.deepEqual(await daysOf(t.db, 'payment_days'), await daysOf(t.db, 'invoice_payments'));
    // A workspace's cascade delete takes its days (and counts none of its payments).
    await t.db.deleteFrom('workspaces').where('id', '=', seeded.workspace.id).execute();
    assert.deepEqual(await t.db.selectFrom('payment_days').select('paid_on').where('workspace_id', '=', seeded.workspace.id).execute(), []);
    assert.deepEqual(await daysOf(t.db, 'payment_days'), await daysOf(t.db, 'invoice_payments'));
  });

  test('migration 0022 sums the payments recorded before it (after its down migration)', async () => {
    const m = await buildTestApp();
    try {
      const w = client(m.app, (await seedWorkspace(m.db)).token);
      const inv = (await w.post('/api/v1/invoices', { name: 'Inv', status: 'sent', line_items: [{ name: 'Work', unitPrice: 500, quantity: 1 }] })).body.data;
      await w.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 20, method: 'card', paid_on: thisMonth });
      await paymentDays.down(m.db as Kysely<unknown>);
      // Recorded while there is no payment_days (as before 0022).
      await w.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 30, method: 'card', paid_on: thisMonth });
      await w.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 5, method: 'card', paid_on: lastYear });
      await paymentDays.up(m.db as Kysely<unknown>);
      assert.deepEqual(await daysOf(m.db, 'payment_days'), await daysOf(m.db, 'invoice_payments'));
      assert.equal((await daysOf(m.db, 'payment_days')).length, 2);
      assert.deepEqual((await w.get('/api/v1/home')).body.data.payments_by_month[11], { month: thisMonth.slice(0, 7), amount: 50, count: 2 });
    } finally {
      await m.close();
    }
  });

  test('get_started: each first step done from real data, in isolation from other workspaces; null without workspace:write', async () => {
    const seeded = await seedWorkspace(t.db);
    const fresh = client(t.app, seeded.token);
    const steps = async () => (await fresh.get('/api/v1/home')).body.data.get_started;
    assert.deepEqual(await steps(), { company_details: false, price_book: false, first_client: false, team: false });
    // Another workspace's records count for nothing here.
    await api.post('/api/v1/services', { name: 'Mowing', price: 40 });
    assert.deepEqual(await steps(), { company_details: false, price_book: false, first_client: false, team: false });
    assert.equal((await fresh.put('/api/v1/workspace', { phone: '+1 555 0100' })).status, 200);
    assert.equal((await fresh.post('/api/v1/services', { name: 'Mowing', price: 40 })).status, 201);
    assert.equal((await fresh.post('/api/v1/contacts', { first_name: 'Dana', last_name: 'Reyes' })).status, 201);
    assert.deepEqual(await steps(), { company_details: true, price_book: true, first_client: true, team: false });
    const owner = client(t.app, await ownerSessionToken(t.db, seeded.workspace.id));
    assert.equal((await owner.post('/api/v1/team/invites', { email: 'crew@example.test', role: 'member' })).status, 201);
    assert.deepEqual(await steps(), { company_details: true, price_book: true, first_client: true, team: true });
    const reader = client(t.app, await keyFor(t.db, seeded.workspace.id, 'rest', ['contacts:read', 'workspace:read']));
    assert.equal((await reader.get('/api/v1/home')).body.data.get_started, null);
  });

  test('bad input: 400 in the envelope', async () => {
    const res = await api.get('/api/v1/home?activity_limit=500');
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
  });

  test('the 12 months step back across a year, from any day of any month', () => {
    assert.equal(monthStart('2027-01-31', 0), '2027-01-01');
    assert.equal(monthStart('2027-01-15', 1), '2026-12-01');
    assert.equal(monthStart('2027-03-01', 11), '2026-04-01');
    assert.equal(monthStart('2026-12-31', 11), '2026-01-01');
    assert.equal(monthStart('2026-11-30', 12), '2025-11-01');
    assert.equal(monthStart('2028-02-29', 24), '2026-02-01');
    // Every month of a span, against the calendar's own arithmetic.
    for (let back = 0; back < 40; back++) {
      const d = new Date(Date.UTC(2027, 1 - back, 1)).toISOString().slice(0, 10);
      assert.equal(monthStart('2027-02-17', back), d);
    }
  });
});
