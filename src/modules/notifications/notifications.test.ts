import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, type Client, client, keyFor, outboxEvents, type Res, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { listMessages } from '../../outbox/messages.ts';
import { listInbox } from '../notifications-internal/internal-notifications.ts';
import { setUser } from '../users/users.service.ts';
import { settingsOf, setWorkspace } from '../workspace/workspace.service.ts';
import { formatDate } from '../../domain/format.ts';

// SPEC Notifications, "Internal notifications", "States and transitions";
// D16, D19, D29, D32, D4, D5. Each test that depends on state gets its own
// workspace (one app and database for the file).

type Seeded = Awaited<ReturnType<typeof seedWorkspace>>;
type Ws = Seeded & { id: number; name: string; api: Client };
type Body = Record<string, unknown>;
/** A created record as the API returns it: the fields these tests read. */
type Doc = { id: number; number: number; contact_id: number; status: string; [k: string]: unknown };
type Type = 'quote_to_customer' | 'invoice_to_customer' | 'appointment_reminder';

const DATA_KEYS = ['module', 'module_id', 'queued', 'recipient', 'type'];

describe('POST /notifications', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  // ---- helpers -------------------------------------------------------------

  async function workspace(settings?: Record<string, string>): Promise<Ws> {
    const ws = await seedWorkspace(t.db);
    if (settings) await setWorkspace(t.db, ws.workspace.id, settings);
    return { ...ws, id: ws.workspace.id, name: ws.workspace.name, api: client(t.app, ws.token) };
  }

  async function created(res: Res): Promise<Doc> {
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  }

  const makeContact = async (w: Ws, extra: Body = {}): Promise<Doc> =>
    created(await w.api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+15550001', ...extra }));

  /** A quote (draft unless `status` says otherwise) for a new contact, unless `contact_id` is given. */
  async function makeQuote(w: Ws, extra: Body = {}): Promise<Doc> {
    const contact_id = 'contact_id' in extra ? extra.contact_id : (await makeContact(w)).id;
    return created(await w.api.post('/api/v1/quotes', { name: 'Spring cleanup', total: 1234.5, date: '2026-03-05', ...extra, contact_id }));
  }

  async function makeInvoice(w: Ws, extra: Body = {}): Promise<Doc> {
    const contact_id = 'contact_id' in extra ? extra.contact_id : (await makeContact(w)).id;
    return created(await w.api.post('/api/v1/invoices', { name: 'INV-42', total: 99.95, date: '2026-03-05', ...extra, contact_id }));
  }

  async function makeEvent(w: Ws, extra: Body = {}): Promise<Doc> {
    return created(
      await w.api.post('/api/v1/events', { name: 'Gutter check', type: 'appointment', start_date: '2026-04-01', end_date: '2026-04-01', start_time: '09:00', end_time: '10:30', ...extra }),
    );
  }

  const send = (w: Ws, type: Type, module_id: unknown, api: Client = w.api) => api.post('/api/v1/notifications', { type, module_id });

  /** The workspace's messages with their bodies, oldest first. */
  const messages = (w: Ws, channel?: 'email' | 'sms') => {
    let q = t.db.selectFrom('messages').selectAll().where('workspace_id', '=', w.id);
    if (channel) q = q.where('channel', '=', channel);
    return q.orderBy('id').execute();
  };

  const inbox = async (w: Ws, userId: string, name: string) => (await listInbox(t.db, w.id, userId)).filter((n) => n.name === name);

  const quoteStatus = async (w: Ws, id: number) => (await w.api.get(`/api/v1/quotes/${id}`)).body.data.status;
  const invoiceStatus = async (w: Ws, id: number) => (await w.api.get(`/api/v1/invoices/${id}`)).body.data.status;

  const count = async (table: 'messages' | 'outbox' | 'internal_notifications' | 'quote_status_changes', w: Ws) =>
    Number(
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('workspace_id', '=', w.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** Everything a notification call could change in a workspace. */
  async function snapshot(w: Ws) {
    return {
      messages: await count('messages', w),
      outbox: await count('outbox', w),
      internal: await count('internal_notifications', w),
      statusChanges: await count('quote_status_changes', w),
      quotes: await t.db.selectFrom('quotes').select(['id', 'status', 'updated_at']).where('workspace_id', '=', w.id).orderBy('id').execute(),
      invoices: await t.db.selectFrom('invoices').select(['id', 'status', 'updated_at']).where('workspace_id', '=', w.id).orderBy('id').execute(),
      events: await t.db.selectFrom('events').select(['id', 'status', 'updated_at']).where('workspace_id', '=', w.id).orderBy('id').execute(),
      counters: (await t.db.selectFrom('counters').select(['kind', 'value']).where('workspace_id', '=', w.id).orderBy('kind').execute()).map((c) => [c.kind, Number(c.value)]),
    };
  }

  /** A manager, an admin and a member next to the owner. */
  async function team(w: Ws) {
    return {
      owner: w.owner,
      admin: await seedUser(t.db, w.id, 'admin'),
      manager: await seedUser(t.db, w.id, 'manager'),
      member: await seedUser(t.db, w.id, 'member'),
    };
  }
  type Team = Awaited<ReturnType<typeof team>>;

  /** How many `name` notifications each role holds. */
  async function perRole(w: Ws, people: Team, name: string) {
    return {
      owner: (await inbox(w, people.owner.user_id, name)).length,
      admin: (await inbox(w, people.admin.user_id, name)).length,
      manager: (await inbox(w, people.manager.user_id, name)).length,
      member: (await inbox(w, people.member.user_id, name)).length,
    };
  }
  const everyoneButMembers = (n: number) => ({ owner: n, admin: n, manager: n, member: 0 });

  const SMS_ON = { sms_provider: 'log', sms_plan: 'true', 'notifications.quote_to_customer.sms': 'true' };
  const CONSENT = { info: { sms_consent: { opt_in: true } } };

  // ---- the response ----------------------------------------------------------

  test('quote_to_customer: 201 with exactly {queued, type, module, module_id, recipient: {contact_id, email}}', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    const res = await send(w, 'quote_to_customer', q.id);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'success']);
    assert.equal(res.body.success, true);
    assert.deepEqual(Object.keys(res.body.data).sort(), DATA_KEYS);
    assert.deepEqual(Object.keys(res.body.data.recipient).sort(), ['contact_id', 'email']);
    assert.deepEqual(res.body.data, {
      queued: true,
      type: 'quote_to_customer',
      module: 'quotes',
      module_id: q.id,
      recipient: { contact_id: q.contact_id, email: 'ada@example.com' },
    });
  });

  test('invoice_to_customer answers module invoices, appointment_reminder module events', async () => {
    const w = await workspace();
    const contact = await makeContact(w, { email: 'bob@example.com' });
    const inv = await makeInvoice(w, { contact_id: contact.id });
    const job = await created(await w.api.post('/api/v1/jobs', { name: 'Gutters', contact_id: contact.id }));
    const ev = await makeEvent(w, { job_id: job.id });
    const expected = (type: Type, module: string, module_id: number) => ({
      success: true,
      data: { queued: true, type, module, module_id, recipient: { contact_id: contact.id, email: 'bob@example.com' } },
    });
    const a = await send(w, 'invoice_to_customer', inv.id);
    assert.equal(a.status, 201);
    assert.deepEqual(a.body, expected('invoice_to_customer', 'invoices', inv.id));
    const b = await send(w, 'appointment_reminder', ev.id);
    assert.equal(b.status, 201);
    assert.deepEqual(b.body, expected('appointment_reminder', 'events', ev.id));
  });

  // ---- validation, auth ----------------------------------------------------

  test('D4: an invalid body is 400 Invalid request with details naming the field; nothing changes', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    const before = await snapshot(w);
    const cases: [unknown, (string | number)[]][] = [
      [{ type: 'quote_to_everyone', module_id: q.id }, ['type']],
      [{ type: 'QUOTE_TO_CUSTOMER', module_id: q.id }, ['type']],
      [{ type: 7, module_id: q.id }, ['type']],
      [{ module_id: q.id }, ['type']],
      [{ type: 'quote_to_customer' }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: 1.5 }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: 0 }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: -1 }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: String(q.id) }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: 2_147_483_648 }, ['module_id']],
      [{ type: 'quote_to_customer', module_id: null }, ['module_id']],
    ];
    for (const [body, path] of cases) {
      const res = await w.api.post('/api/v1/notifications', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error, 'Invalid request', JSON.stringify(body));
      assert.ok(Array.isArray(res.body.details) && res.body.details.length > 0, JSON.stringify(body));
      assert.ok(
        res.body.details.some((d: { path: unknown }) => JSON.stringify(d.path) === JSON.stringify(path)),
        `${JSON.stringify(body)} -> ${JSON.stringify(res.body.details)}`,
      );
      for (const d of res.body.details) assert.equal(typeof d.message, 'string');
    }
    const both = await w.api.post('/api/v1/notifications', {});
    assert.deepEqual(both.body.details.map((d: { path: unknown }) => d.path).sort(), [['module_id'], ['type']]);
    assert.equal((await send(w, 'quote_to_customer', 2_147_483_647)).status, 404, 'the largest id is valid, just absent');
    assert.deepEqual(await snapshot(w), before);
  });

  test('D5: broken JSON is 400 Invalid JSON body; a body that is not an object is 400 Invalid request', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    const before = await snapshot(w);
    const broken = await w.api.post('/api/v1/notifications', `{"type": "quote_to_customer", "module_id": ${q.id}`);
    assert.equal(broken.status, 400);
    assert.deepEqual(broken.body, { success: false, error: 'Invalid JSON body' });
    for (const body of ['[]', '"quote_to_customer"', '42', 'null', 'true', `[{"type":"quote_to_customer","module_id":${q.id}}]`]) {
      const res = await w.api.post('/api/v1/notifications', body);
      assert.equal(res.status, 400, body);
      assert.equal(res.body.success, false, body);
      assert.equal(res.body.error, 'Invalid request', body);
      assert.ok(Array.isArray(res.body.details), body);
    }
    assert.deepEqual(await snapshot(w), before);
  });

  test('rule 3: the channel cannot be forced; unknown fields are ignored', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    const res = await w.api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: q.id, channel: 'sms', module: 'invoices', to: 'x@evil.test' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.module, 'quotes');
    assert.equal(res.body.data.recipient.email, 'ada@example.com');
    const rows = await messages(w);
    assert.deepEqual(
      rows.map((m) => [m.channel, m.recipient]),
      [['email', 'ada@example.com']],
    );
  });

  test('scope: 403 without notifications:write; a rest key with only notifications:write may send (no quotes:write needed)', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    const readOnly = client(t.app, await keyFor(t.db, w.id, 'rest', ['quotes:read', 'quotes:write', 'invoices:write', 'events:write']));
    const before = await snapshot(w);
    const denied = await send(w, 'quote_to_customer', q.id, readOnly);
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: notifications:write' });
    const generalRead = client(t.app, await keyFor(t.db, w.id, 'general', ['read']));
    assert.equal((await send(w, 'quote_to_customer', q.id, generalRead)).status, 403);
    assert.deepEqual(await snapshot(w), before);

    const onlyNotify = client(t.app, await keyFor(t.db, w.id, 'rest', ['notifications:write']));
    const ok = await send(w, 'quote_to_customer', q.id, onlyNotify);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(await quoteStatus(w, q.id), 'awaiting_response');
    assert.equal((await send(w, 'quote_to_customer', q.id, client(t.app))).status, 401, 'no key');
  });

  // ---- 404 and 400 ---------------------------------------------------------

  test("D19, D32: an absent id and another workspace's id are the same 404; nothing changes", async () => {
    const w = await workspace();
    const other = await workspace();
    const foreign = {
      quote_to_customer: (await makeQuote(other)).id,
      invoice_to_customer: (await makeInvoice(other)).id,
      appointment_reminder: (await makeEvent(other, { request_id: (await created(await other.api.post('/api/v1/requests', { contact_id: (await makeContact(other)).id }))).id })).id,
    };
    await makeQuote(w); // something to leave alone
    const before = await snapshot(w);
    const beforeOther = await snapshot(other);
    const texts: Record<Type, string> = { quote_to_customer: 'Quote not found', invoice_to_customer: 'Invoice not found', appointment_reminder: 'Event not found' };
    for (const type of Object.keys(texts) as Type[]) {
      const absent = await send(w, type, 999_999);
      const theirs = await send(w, type, foreign[type]);
      assert.equal(absent.status, 404, type);
      assert.deepEqual(absent.body, { success: false, error: texts[type] });
      assert.equal(theirs.status, absent.status, type);
      assert.deepEqual(theirs.body, absent.body);
    }
    assert.deepEqual(await snapshot(w), before);
    assert.deepEqual(await snapshot(other), beforeOther, "the other workspace's documents did not move either");
  });

  test('400 <Resource> has no contact with an email address; the document does not move, nothing is queued', async () => {
    const w = await workspace();
    await team(w);
    const noEmail = await makeContact(w, { email: null });
    const cases: [Type, number, string][] = [
      ['quote_to_customer', (await makeQuote(w, { contact_id: null })).id, 'Quote has no contact with an email address'],
      ['quote_to_customer', (await makeQuote(w, { contact_id: noEmail.id })).id, 'Quote has no contact with an email address'],
      ['invoice_to_customer', (await makeInvoice(w, { contact_id: null })).id, 'Invoice has no contact with an email address'],
      ['invoice_to_customer', (await makeInvoice(w, { contact_id: noEmail.id })).id, 'Invoice has no contact with an email address'],
      ['appointment_reminder', (await makeEvent(w)).id, 'Event has no contact with an email address'],
      [
        'appointment_reminder',
        (await makeEvent(w, { job_id: (await created(await w.api.post('/api/v1/jobs', { name: 'No contact' }))).id })).id,
        'Event has no contact with an email address',
      ],
      [
        'appointment_reminder',
        (await makeEvent(w, { request_id: (await created(await w.api.post('/api/v1/requests', { contact_id: noEmail.id }))).id })).id,
        'Event has no contact with an email address',
      ],
    ];
    const before = await snapshot(w);
    for (const [type, id, error] of cases) {
      const res = await send(w, type, id);
      assert.equal(res.status, 400, `${type} ${id}`);
      assert.deepEqual(res.body, { success: false, error });
    }
    assert.deepEqual(await snapshot(w), before);
    assert.deepEqual(await listMessages(t.db, w.id), []);
  });

  test('a failure while queueing rolls back the status move, its webhook and the team notifications', async () => {
    const w = await workspace();
    await team(w);
    const q = await makeQuote(w);
    const inv = await makeInvoice(w);
    const before = await snapshot(w);
    await sql`alter table messages rename to messages_away`.execute(t.db);
    try {
      assert.equal((await send(w, 'quote_to_customer', q.id)).status, 500);
      assert.equal((await send(w, 'invoice_to_customer', inv.id)).status, 500);
    } finally {
      await sql`alter table messages_away rename to messages`.execute(t.db);
    }
    assert.deepEqual(await snapshot(w), before);
    assert.equal(await quoteStatus(w, q.id), 'draft');
    assert.equal(await invoiceStatus(w, inv.id), 'draft');
  });

  // ---- recipients and status moves ------------------------------------------

  test("D19: appointment_reminder goes to the job's contact, else the request's; the event keeps its status", async () => {
    const w = await workspace();
    const jobContact = await makeContact(w, { first_name: 'Jo', email: 'jo@example.com' });
    const requestContact = await makeContact(w, { first_name: 'Rita', email: 'rita@example.com' });
    const job = await created(await w.api.post('/api/v1/jobs', { name: 'Roof', contact_id: jobContact.id }));
    const contactless = await created(await w.api.post('/api/v1/jobs', { name: 'Orphan' }));
    const noEmail = await makeContact(w, { first_name: 'Nemo', email: null });
    const emailless = await created(await w.api.post('/api/v1/jobs', { name: 'Mute', contact_id: noEmail.id }));
    const request = await created(await w.api.post('/api/v1/requests', { contact_id: requestContact.id }));

    const cases: [Body, number, string][] = [
      [{ job_id: job.id, request_id: request.id }, jobContact.id, 'jo@example.com'],
      [{ job_id: job.id }, jobContact.id, 'jo@example.com'],
      [{ job_id: contactless.id, request_id: request.id }, requestContact.id, 'rita@example.com'],
      // "no such contact with an email": the job's contact has none, so the request's is used.
      [{ job_id: emailless.id, request_id: request.id }, requestContact.id, 'rita@example.com'],
      [{ request_id: request.id, status: 'pending' }, requestContact.id, 'rita@example.com'],
    ];
    for (const [links, contact_id, email] of cases) {
      const ev = await makeEvent(w, links);
      const res = await send(w, 'appointment_reminder', ev.id);
      assert.equal(res.status, 201, JSON.stringify(links));
      assert.deepEqual(res.body.data.recipient, { contact_id, email }, JSON.stringify(links));
      const [last] = await listMessages(t.db, w.id, { limit: 1 });
      assert.deepEqual([last.to, last.contact_id, last.module_type, last.module_id, last.type], [email, contact_id, 'event', ev.id, 'appointment_reminder']);
      const after = (await w.api.get(`/api/v1/events/${ev.id}`)).body.data;
      assert.equal(after.status, ev.status, 'the event status does not change');
    }
  });

  test('quote_to_customer moves any other status to awaiting_response and keeps accepted, awaiting_deposit, awaiting_response', async () => {
    const w = await workspace();
    const moves = ['draft', 'declined', 'expired', 'archived'];
    const keeps = ['awaiting_response', 'accepted', 'awaiting_deposit'];
    for (const status of [...moves, ...keeps]) {
      const q = await makeQuote(w, { status });
      const changes = await count('quote_status_changes', w);
      const res = await send(w, 'quote_to_customer', q.id);
      assert.equal(res.status, 201, status);
      const expected = moves.includes(status) ? 'awaiting_response' : status;
      assert.equal(await quoteStatus(w, q.id), expected, status);
      assert.equal(await count('quote_status_changes', w), changes + (moves.includes(status) ? 1 : 0), status);
    }
    assert.equal((await messages(w, 'email')).length, moves.length + keeps.length, 'every call queues its email');
  });

  test('the status move is recorded with the key user, like the status endpoint', async () => {
    const w = await workspace();
    const q = await makeQuote(w);
    await send(w, 'quote_to_customer', q.id);
    const detail = (await w.api.get(`/api/v1/quotes/${q.id}`)).body.data;
    assert.equal(detail.status_changes.length, 1);
    assert.equal(detail.status_changes[0].status, 'awaiting_response');
  });

  test('invoice_to_customer moves any other status to sent and keeps sent, paid, partially_paid, overdue', async () => {
    const w = await workspace();
    const moves = ['draft', 'scheduled', 'cancelled'];
    const keeps = ['sent', 'paid', 'partially_paid', 'overdue'];
    for (const status of [...moves, ...keeps]) {
      const inv = await makeInvoice(w, { status });
      const res = await send(w, 'invoice_to_customer', inv.id);
      assert.equal(res.status, 201, status);
      assert.equal(await invoiceStatus(w, inv.id), moves.includes(status) ? 'sent' : status, status);
    }
    assert.equal((await messages(w, 'email')).length, moves.length + keeps.length);
  });

  test('D16: entering sent emits one invoice_sent; re-sending emits none and queues a second email', async () => {
    const w = await workspace();
    const inv = await makeInvoice(w);
    const sentEvents = async () => (await outboxEvents(t.db, w.id)).filter((e) => e.event === 'invoice_sent');
    assert.equal((await sentEvents()).length, 0);
    assert.equal((await send(w, 'invoice_to_customer', inv.id)).status, 201);
    const first = await sentEvents();
    assert.equal(first.length, 1);
    assert.equal(first[0].data.id, inv.id);
    assert.equal(first[0].data.status, 'sent');
    assert.equal((await send(w, 'invoice_to_customer', inv.id)).status, 201);
    assert.equal((await sentEvents()).length, 1, 'staying sent emits nothing');
    assert.equal((await messages(w, 'email')).length, 2);
    const paid = await makeInvoice(w, { status: 'paid' });
    await send(w, 'invoice_to_customer', paid.id);
    assert.equal((await sentEvents()).length, 1, 'a paid invoice is not sent again');
  });

  // ---- internal notifications ------------------------------------------------

  test('quotes_awaiting_response reaches owner, admin and manager (not member) once, with the quote id', async () => {
    const w = await workspace();
    const people = await team(w);
    const q = await makeQuote(w);
    await send(w, 'quote_to_customer', q.id);
    assert.deepEqual(await perRole(w, people, 'quotes_awaiting_response'), everyoneButMembers(1));
    const [n] = await inbox(w, people.manager.user_id, 'quotes_awaiting_response');
    assert.equal(n.module_type, 'quote');
    assert.equal(n.module_id, q.id);
    assert.equal((n.data as Body).quote_id, q.id);
    await send(w, 'quote_to_customer', q.id);
    assert.deepEqual(await perRole(w, people, 'quotes_awaiting_response'), everyoneButMembers(1), 'staying awaiting_response notifies nobody');
  });

  test('quotes_awaiting_response fires on entering by any path: create, PUT, status endpoint; never while it stays', async () => {
    const w = await workspace();
    const people = await team(w);
    const total = () => perRole(w, people, 'quotes_awaiting_response');

    const createdAwaiting = await makeQuote(w, { status: 'awaiting_response' });
    assert.deepEqual(await total(), everyoneButMembers(1), 'POST with the status');

    const viaPut = await makeQuote(w);
    assert.deepEqual(await total(), everyoneButMembers(1), 'a draft notifies nobody');
    assert.equal((await w.api.put(`/api/v1/quotes/${viaPut.id}`, { status: 'awaiting_response' })).status, 200);
    assert.deepEqual(await total(), everyoneButMembers(2), 'PUT /quotes/:id');

    const viaStatus = await makeQuote(w);
    assert.equal((await w.api.put(`/api/v1/quotes/${viaStatus.id}/status`, { status: 'awaiting_response' })).status, 200);
    assert.deepEqual(await total(), everyoneButMembers(3), 'PUT /quotes/:id/status');

    // Staying: the same status again, or another field changed.
    await w.api.put(`/api/v1/quotes/${viaStatus.id}/status`, { status: 'awaiting_response', comment: 'again' });
    await w.api.put(`/api/v1/quotes/${viaPut.id}`, { status: 'awaiting_response', name: 'Renamed' });
    await w.api.put(`/api/v1/quotes/${createdAwaiting.id}`, { name: 'Renamed' });
    await send(w, 'quote_to_customer', createdAwaiting.id);
    assert.deepEqual(await total(), everyoneButMembers(3));

    // Leaving and entering again is a new entry.
    await w.api.put(`/api/v1/quotes/${viaPut.id}/status`, { status: 'declined' });
    await send(w, 'quote_to_customer', viaPut.id);
    assert.deepEqual(await total(), everyoneButMembers(4));
    const ids = (await inbox(w, people.admin.user_id, 'quotes_awaiting_response')).map((n) => (n.data as Body).quote_id).sort();
    assert.deepEqual(ids, [createdAwaiting.id, viaPut.id, viaStatus.id, viaPut.id].sort());
  });

  test('invoices_sent fires on entering sent by any path (notification, create, PUT, status endpoint), with the invoice id', async () => {
    const w = await workspace();
    const people = await team(w);
    const total = () => perRole(w, people, 'invoices_sent');

    const viaSend = await makeInvoice(w);
    await send(w, 'invoice_to_customer', viaSend.id);
    assert.deepEqual(await total(), everyoneButMembers(1));
    const [n] = await inbox(w, people.owner.user_id, 'invoices_sent');
    assert.equal(n.module_type, 'invoice');
    assert.equal((n.data as Body).invoice_id, viaSend.id);

    const createdSent = await makeInvoice(w, { status: 'sent' });
    assert.deepEqual(await total(), everyoneButMembers(2));
    const viaPut = await makeInvoice(w);
    await w.api.put(`/api/v1/invoices/${viaPut.id}`, { status: 'sent' });
    assert.deepEqual(await total(), everyoneButMembers(3));
    const viaStatus = await makeInvoice(w);
    await w.api.put(`/api/v1/invoices/${viaStatus.id}/status`, { status: 'sent' });
    assert.deepEqual(await total(), everyoneButMembers(4));

    await send(w, 'invoice_to_customer', createdSent.id);
    await w.api.put(`/api/v1/invoices/${viaStatus.id}/status`, { status: 'sent' });
    await w.api.put(`/api/v1/invoices/${viaPut.id}`, { status: 'sent', name: 'Renamed' });
    assert.deepEqual(await total(), everyoneButMembers(4), 'staying sent notifies nobody');
  });

  test('internal.quotes_awaiting_response=false silences it for the workspace; notify.<name>=false for one user', async () => {
    const off = await workspace({ 'internal.quotes_awaiting_response': 'false' });
    const offTeam = await team(off);
    await send(off, 'quote_to_customer', (await makeQuote(off)).id);
    assert.deepEqual(await perRole(off, offTeam, 'quotes_awaiting_response'), everyoneButMembers(0));
    assert.equal(await quoteStatus(off, (await listMessages(t.db, off.id))[0].module_id), 'awaiting_response', 'the quote still moves');

    const w = await workspace();
    const people = await team(w);
    await setUser(t.db, w.id, people.admin.user_id, { 'notify.quotes_awaiting_response': 'false' });
    await setUser(t.db, w.id, people.manager.user_id, { 'notify.invoices_sent': 'false' });
    await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.deepEqual(await perRole(w, people, 'quotes_awaiting_response'), { owner: 1, admin: 0, manager: 1, member: 0 });
    await send(w, 'invoice_to_customer', (await makeInvoice(w)).id);
    assert.deepEqual(await perRole(w, people, 'invoices_sent'), { owner: 1, admin: 1, manager: 0, member: 0 });
  });

  // ---- the messages ----------------------------------------------------------

  test('one queued email per call, to the contact, rendered from the default template', async () => {
    const w = await workspace();
    const q = await makeQuote(w, { expire_on: '2026-04-05', message: 'See you in spring.' });
    await send(w, 'quote_to_customer', q.id);
    await send(w, 'quote_to_customer', q.id);
    const rows = await messages(w);
    assert.equal(rows.length, 2);
    const [m] = rows;
    assert.deepEqual([m.channel, m.type, m.status, m.recipient, m.module_type, m.module_id, m.contact_id], ['email', 'quote_to_customer', 'queued', 'ada@example.com', 'quote', q.id, q.contact_id]);
    assert.equal(m.error, null);
    assert.equal(m.subject, `Quote #${q.number} from ${w.name}`);
    for (const part of [`quote #${q.number}`, 'Hello Ada,', 'Spring cleanup', 'Total: $1,234.50', 'Date: March 5, 2026', 'Valid until: April 5, 2026', 'See you in spring.', w.name]) {
      assert.ok(m.body_text.includes(part), `body_text has ${part}:\n${m.body_text}`);
    }
    assert.ok(m.body_html?.includes('$1,234.50'));
    assert.notEqual(rows[0].message_id, rows[1].message_id);
    const logged = await listMessages(t.db, w.id);
    assert.deepEqual(
      logged.map((l) => [l.channel, l.to, l.status, l.subject]),
      [
        ['email', 'ada@example.com', 'queued', m.subject],
        ['email', 'ada@example.com', 'queued', m.subject],
      ],
    );
  });

  test('lines about values a quote lacks are left out; a quote without a date shows today (workspace time zone)', async () => {
    const w = await workspace();
    const q = await makeQuote(w, { name: null, date: null });
    const today = () => formatDate(new Date().toISOString());
    const before = today();
    await send(w, 'quote_to_customer', q.id);
    const [m] = await messages(w);
    assert.doesNotMatch(m.body_text, /Valid until/);
    assert.doesNotMatch(m.body_text, /\n\n\n/);
    assert.ok([before, today()].some((d) => m.body_text.includes(`Date: ${d}`)), m.body_text);
    assert.ok(m.body_text.includes('Total: $1,234.50'));
  });

  test('E10: the quote and invoice emails list the line items and totals in the workspace currency', async () => {
    const w = await workspace();
    await setWorkspace(t.db, w.id, { currency: 'eur' });
    const contact = await makeContact(w);
    const items = [
      { name: 'Boiler service', quantity: 2, unitPrice: 120 },
      { name: 'Valve <½"> & seal', quantity: 1.5, unitPrice: 9.99, optional: true },
    ];
    const q = await created(await w.api.post('/api/v1/quotes', { contact_id: contact.id, line_items: items, discount: 20, discount_unit: '$', tax_rate: 10 }));
    await send(w, 'quote_to_customer', q.id);
    const inv = await created(await w.api.post('/api/v1/invoices', { contact_id: contact.id, status: 'sent', line_items: items }));
    await w.api.post(`/api/v1/invoices/${inv.id}/payments`, { amount: 40 });
    await send(w, 'invoice_to_customer', inv.id);
    const [qm, im] = await messages(w, 'email');
    for (const part of [
      `quote #${q.number}`,
      '- Boiler service: 2 x €120.00 = €240.00',
      '- Valve <½"> & seal (optional): 1.5 x €9.99 = €14.99',
      'Subtotal: €240.00',
      'Discount: -€20.00',
      'Tax (10%): €22.00',
      'Total: €242.00 EUR',
    ]) {
      assert.ok(qm.body_text.includes(part), `quote text has ${part}:\n${qm.body_text}`);
    }
    assert.ok(qm.body_html?.includes('<li>Valve &#60;½&#34;&#62; &#38; seal (optional): 1.5 x €9.99 = €14.99</li>'), qm.body_html ?? '');
    assert.ok(qm.body_html?.includes('Total: €242.00 EUR'), qm.body_html ?? '');
    for (const part of [`invoice #${inv.number}`, '- Boiler service: 2 x €120.00 = €240.00', 'Total: €240.00 EUR', 'Amount paid: €40.00', 'Balance due: €200.00 EUR']) {
      assert.ok(im.body_text.includes(part), `invoice text has ${part}:\n${im.body_text}`);
    }
    assert.doesNotMatch(im.body_text, /Discount|Tax/, 'no discount or tax line when there is none');
  });

  test('F101: no amount without a currency: a workspace without one uses its country\'s, else usd', async () => {
    for (const [country, expected] of [
      ['GB', 'Total: £1,234.50 GBP'],
      ['CA', 'Total: CA$1,234.50 CAD'],
      ['JP', 'Total: ¥1,235 JPY'],
      ['KE', 'Total: $1,234.50 USD'],
      [null, 'Total: $1,234.50 USD'],
    ] as const) {
      const w = await workspace();
      // A workspace from before the default (or whose currency was cleared): null in the row.
      await t.db.updateTable('workspaces').set({ currency: null, country }).where('id', '=', w.id).execute();
      await send(w, 'quote_to_customer', (await makeQuote(w)).id);
      const [m] = await messages(w, 'email');
      assert.ok(m.body_text.includes(expected), `${country}: ${m.body_text}`);
    }
  });

  test('body_html escapes HTML in values; body_text keeps them as written', async () => {
    const w = await workspace();
    const contact = await makeContact(w, { first_name: '<b>Ada</b>', email: 'ada.html@example.com' });
    const q = await makeQuote(w, { contact_id: contact.id, name: 'Fence & "gate"' });
    assert.equal((await send(w, 'quote_to_customer', q.id)).status, 201);
    const [m] = await messages(w);
    assert.ok(m.body_text.includes('Hello <b>Ada</b>,'));
    assert.ok(m.body_text.includes('Fence & "gate"'));
    assert.ok(!m.body_html?.includes('<b>Ada</b>'), m.body_html ?? '');
    assert.ok(m.body_html?.includes('Hello &#60;b&#62;Ada&#60;/b&#62;,'), m.body_html ?? '');
    assert.ok(m.body_html?.includes('Fence &#38; &#34;gate&#34;'), m.body_html ?? '');
  });

  test('invoice and reminder emails carry their own values', async () => {
    const w = await workspace();
    const contact = await makeContact(w);
    // E2: an explicit null due_date wins over the terms, so the email names the terms.
    const inv = await makeInvoice(w, { contact_id: contact.id, payment_terms: 'net_30', due_date: null });
    const unnamed = await makeInvoice(w, { contact_id: contact.id, name: null, due_date: '2026-04-30' });
    const property = await created(await w.api.post(`/api/v1/contacts/${contact.id}/properties`, { address: { street: '1 Main St', city: 'Springfield', state: 'IL', postal_code: '62701' } }));
    const job = await created(await w.api.post('/api/v1/jobs', { name: 'Gutters', contact_id: contact.id, property_id: property.id }));
    const ev = await makeEvent(w, { job_id: job.id });
    await send(w, 'invoice_to_customer', inv.id);
    await send(w, 'invoice_to_customer', unnamed.id);
    await send(w, 'appointment_reminder', ev.id);
    const [a, b, c] = await messages(w);
    assert.equal(a.subject, `Invoice #${inv.number} from ${w.name}`, 'E10: the subject names the number');
    assert.ok(a.body_text.includes('Total: $99.95'), a.body_text);
    assert.ok(a.body_text.includes(`invoice #${inv.number}.`), 'E1: the invoice number');
    assert.ok(a.body_text.includes('Due: within 30 days'), a.body_text);
    assert.equal(b.subject, `Invoice #${unnamed.number} from ${w.name}`, 'an unnamed invoice too');
    assert.ok(b.body_text.includes('Due: April 30, 2026'), b.body_text);
    assert.equal(c.subject, `Reminder: your appointment with ${w.name} on April 1, 2026 at 09:00`);
    assert.ok(c.body_text.includes('Time: 09:00 to 10:30'), c.body_text);
    assert.ok(c.body_text.includes('Address: 1 Main St, Springfield, IL 62701'), c.body_text);
  });

  test("a workspace's subject template applies; an unknown placeholder or key is refused and changes nothing", async () => {
    const w = await workspace();
    const { settings } = await setWorkspace(t.db, w.id, { 'templates.quote_to_customer.subject': 'Q{{number}} for {{contact_name}}' });
    assert.equal(settings['templates.quote_to_customer.subject'], 'Q{{number}} for {{contact_name}}');
    const q = await makeQuote(w);
    await send(w, 'quote_to_customer', q.id);
    assert.equal((await messages(w))[0].subject, `Q${q.number} for Ada Lovelace`);

    const stored = async () => (await t.db.selectFrom('workspaces').select(['name', 'settings']).where('id', '=', w.id).executeTakeFirstOrThrow());
    const before = await stored();
    await assert.rejects(
      setWorkspace(t.db, w.id, { name: 'Renamed', 'templates.quote_to_customer.subject': 'Hi {{nickname}}' }),
      /\{\{nickname\}\}/,
    );
    await assert.rejects(setWorkspace(t.db, w.id, { 'templates.quote_to_customer.footer': 'x' }), /templates\.quote_to_customer\.footer/);
    await assert.rejects(setWorkspace(t.db, w.id, { 'templates.sms_blast.subject': 'x' }), /templates\.sms_blast\.subject/);
    await assert.rejects(setWorkspace(t.db, w.id, { 'templates.invoice_to_customer.subject': '{{expire_on}}' }), /\{\{expire_on\}\}/);
    assert.deepEqual(await stored(), before);
    await send(w, 'quote_to_customer', q.id);
    assert.equal((await messages(w))[1].subject, `Q${q.number} for Ada Lovelace`);
  });

  // ---- rules 4 and 5 -------------------------------------------------------

  test('rule 5: with notifications.<type>.email=false the call succeeds, the quote moves, the email is logged not_sent', async () => {
    const w = await workspace({ 'notifications.quote_to_customer.email': 'false' });
    const q = await makeQuote(w);
    const res = await send(w, 'quote_to_customer', q.id);
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body.data).sort(), DATA_KEYS);
    assert.equal(res.body.data.queued, true);
    assert.equal(await quoteStatus(w, q.id), 'awaiting_response');
    const rows = await messages(w);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 'not_sent');
    assert.match(rows[0].error ?? '', /notifications\.quote_to_customer\.email/);
    assert.equal(rows[0].next_attempt_at, null, 'nothing for the worker to pick up');

    // Only that type is off.
    const inv = await makeInvoice(w);
    await send(w, 'invoice_to_customer', inv.id);
    assert.equal((await messages(w))[1].status, 'queued');
  });

  test('rule 4, D29: past the allowance the call still answers 201, the email stays not_sent, owner and admins hear once a month', async () => {
    const w = await workspace({ email_allowance: '2' });
    const people = await team(w);
    const responses = [];
    for (let i = 0; i < 4; i++) {
      const q = await makeQuote(w);
      const res = await send(w, 'quote_to_customer', q.id);
      assert.equal(res.status, 201, `call ${i + 1}`);
      assert.deepEqual(res.body, {
        success: true,
        data: { queued: true, type: 'quote_to_customer', module: 'quotes', module_id: q.id, recipient: { contact_id: q.contact_id, email: 'ada@example.com' } },
      });
      responses.push(res);
      assert.equal(await quoteStatus(w, q.id), 'awaiting_response', 'the quote moves either way');
    }
    const rows = await messages(w);
    assert.deepEqual(
      rows.map((m) => m.status),
      ['queued', 'queued', 'not_sent', 'not_sent'],
    );
    assert.match(rows[2].error ?? '', /allowance/);
    assert.match(rows[2].error ?? '', /\(2\)/);
    assert.deepEqual(await perRole(w, people, 'email_allowance_used_up'), { owner: 1, admin: 1, manager: 0, member: 0 });
    const [n] = await inbox(w, people.admin.user_id, 'email_allowance_used_up');
    assert.equal((n.data as Body).email_allowance, 2);
    assert.match(String((n.data as Body).month), /^\d{4}-\d\d$/);
  });

  test('emails refused for the allowance do not use it up: raising it mid-month frees exactly what it adds', async () => {
    const w = await workspace({ email_allowance: '1' });
    for (let i = 0; i < 3; i++) await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.deepEqual((await messages(w)).map((m) => m.status), ['queued', 'not_sent', 'not_sent']);
    await setWorkspace(t.db, w.id, { email_allowance: '2' }); // one email of two used
    await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.equal((await messages(w))[3].status, 'queued', (await messages(w))[3].error ?? '');
    await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.equal((await messages(w))[4].status, 'not_sent', 'two of two used');
  });

  test('an allowance of 0 sends no email at all; a plan must be a short lowercase name', async () => {
    const w = await workspace({ email_allowance: '0' });
    assert.equal((await send(w, 'quote_to_customer', (await makeQuote(w)).id)).status, 201);
    const [row] = await messages(w);
    assert.equal(row.status, 'not_sent');
    assert.match(row.error ?? '', /allowance \(0\)/);
    await assert.rejects(setWorkspace(t.db, w.id, { plan: 'Gold Plan!' }), /plan must be a short lowercase name/);
    assert.equal(settingsOf(await t.db.selectFrom('workspaces').select('settings').where('id', '=', w.id).executeTakeFirstOrThrow()).plan, 'standard');
  });

  test('D29: a 404 or 400 does not use up the allowance', async () => {
    const w = await workspace({ email_allowance: '1' });
    const noContact = await makeQuote(w, { contact_id: null });
    assert.equal((await send(w, 'quote_to_customer', 999_999)).status, 404);
    assert.equal((await send(w, 'quote_to_customer', noContact.id)).status, 400);
    await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.deepEqual((await messages(w)).map((m) => m.status), ['queued']);
  });

  test('D29: emails turned off do not count against the allowance', async () => {
    const w = await workspace({ email_allowance: '1', 'notifications.invoice_to_customer.email': 'false' });
    await send(w, 'invoice_to_customer', (await makeInvoice(w)).id);
    await send(w, 'quote_to_customer', (await makeQuote(w)).id);
    assert.deepEqual((await messages(w)).map((m) => m.status), ['not_sent', 'queued']);
  });

  test('D29 defaults: 1000 emails a month; plan free gives 100 unless email_allowance is set; email on, sms off', async () => {
    const w = await workspace();
    const row = () => t.db.selectFrom('workspaces').select('settings').where('id', '=', w.id).executeTakeFirstOrThrow();
    const defaults = settingsOf(await row());
    assert.equal(defaults.email_allowance, 1000);
    assert.equal(defaults.plan, 'standard');
    assert.equal(defaults.sms_provider, 'none');
    assert.equal(defaults.sms_plan, false);
    for (const type of ['quote_to_customer', 'invoice_to_customer', 'appointment_reminder']) {
      assert.equal(defaults[`notifications.${type}.email`], true);
      assert.equal(defaults[`notifications.${type}.sms`], false);
    }
    assert.equal((await setWorkspace(t.db, w.id, { plan: 'free' })).settings.email_allowance, 100);
    assert.equal(settingsOf(await row()).email_allowance, 100);
    assert.equal((await setWorkspace(t.db, w.id, { email_allowance: '250' })).settings.email_allowance, 250);
    assert.equal((await setWorkspace(t.db, w.id, { plan: 'standard' })).settings.email_allowance, 250, 'an explicit allowance wins over the plan');
    await assert.rejects(setWorkspace(t.db, w.id, { email_allowance: '-1' }));
    await assert.rejects(setWorkspace(t.db, w.id, { email_allowance: 'lots' }));
  });

  // ---- rule 2: SMS --------------------------------------------------------------

  test('rule 2: with all four conditions an sms goes to the contact phone, queued, one line', async () => {
    const w = await workspace(SMS_ON);
    const contact = await makeContact(w, CONSENT);
    const q = await makeQuote(w, { contact_id: contact.id });
    const res = await send(w, 'quote_to_customer', q.id);
    assert.equal(res.status, 201);
    const [sms] = await messages(w, 'sms');
    assert.ok(sms, 'an sms row');
    assert.deepEqual([sms.status, sms.recipient, sms.type, sms.module_id, sms.contact_id, sms.subject, sms.body_html], ['queued', '+15550001', 'quote_to_customer', q.id, contact.id, null, null]);
    // E7: the SMS ends with a fresh hub link to the quote.
    assert.match(sms.body_text, new RegExp(`^${w.name}: we've emailed you quote #${q.number} \\(\\$1,234\\.50\\)\\. http://fieldwork\\.test/hub/[A-Za-z0-9_-]{43}/quotes/${q.id}$`));
    assert.equal((await messages(w, 'email')).length, 1, 'the email goes too');
  });

  test('rule 2: with one condition missing, no sms and the very same response', async () => {
    const variants: [string, Record<string, string>, Body][] = [
      ['all four (control)', SMS_ON, CONSENT],
      ['sms_provider none', { ...SMS_ON, sms_provider: 'none' }, CONSENT],
      ['sms_plan false', { ...SMS_ON, sms_plan: 'false' }, CONSENT],
      ['no consent', SMS_ON, {}],
      ['consent opt_in false', SMS_ON, { info: { sms_consent: { opt_in: false } } }],
      ['consent opt_in "true" (a string)', SMS_ON, { info: { sms_consent: { opt_in: 'true' } } }],
      ['type sms off', { ...SMS_ON, 'notifications.quote_to_customer.sms': 'false' }, CONSENT],
      ['another type sms on', { ...SMS_ON, 'notifications.quote_to_customer.sms': 'false', 'notifications.appointment_reminder.sms': 'true' }, CONSENT],
    ];
    for (const [label, settings, contactExtra] of variants) {
      const w = await workspace(settings);
      const contact = await makeContact(w, contactExtra);
      const q = await makeQuote(w, { contact_id: contact.id });
      const res = await send(w, 'quote_to_customer', q.id);
      assert.equal(res.status, 201, label);
      assert.deepEqual(res.body, {
        success: true,
        data: { queued: true, type: 'quote_to_customer', module: 'quotes', module_id: q.id, recipient: { contact_id: contact.id, email: 'ada@example.com' } },
      });
      assert.equal((await messages(w, 'sms')).length, label.startsWith('all four') ? 1 : 0, label);
      assert.equal((await messages(w, 'email')).length, 1, label);
    }
  });

  test('rule 2: a consenting contact without a phone gets an sms row not_sent, saying so', async () => {
    const w = await workspace(SMS_ON);
    const contact = await makeContact(w, { ...CONSENT, phone: null });
    const res = await send(w, 'quote_to_customer', (await makeQuote(w, { contact_id: contact.id })).id);
    assert.equal(res.status, 201);
    const [sms] = await messages(w, 'sms');
    assert.equal(sms.status, 'not_sent');
    assert.equal(sms.error, 'the contact has no phone number');
    assert.equal((await messages(w, 'email'))[0].status, 'queued');
  });

  test('rule 2: appointment_reminder texts too; invoice_to_customer never does (email only)', async () => {
    const w = await workspace({ ...SMS_ON, 'notifications.appointment_reminder.sms': 'true', 'notifications.invoice_to_customer.sms': 'true' });
    const contact = await makeContact(w, CONSENT);
    const inv = await makeInvoice(w, { contact_id: contact.id });
    await send(w, 'invoice_to_customer', inv.id);
    assert.deepEqual((await messages(w)).map((m) => m.channel), ['email']);
    const request = await created(await w.api.post('/api/v1/requests', { contact_id: contact.id }));
    const ev = await makeEvent(w, { request_id: request.id });
    await send(w, 'appointment_reminder', ev.id);
    const sms = await messages(w, 'sms');
    assert.equal(sms.length, 1);
    assert.deepEqual([sms[0].type, sms[0].recipient, sms[0].status], ['appointment_reminder', '+15550001', 'queued']);
  });

  // ---- concurrency ---------------------------------------------------------------

  test('concurrency: 5 parallel sends of one draft quote: all 201, one move, one notification per admin, 5 emails', async () => {
    const w = await workspace();
    const people = await team(w);
    const q = await makeQuote(w);
    const results = await Promise.all(Array.from({ length: 5 }, () => send(w, 'quote_to_customer', q.id)));
    assert.deepEqual(
      results.map((r) => r.status),
      [201, 201, 201, 201, 201],
      JSON.stringify(results.map((r) => r.body)),
    );
    assert.equal(await quoteStatus(w, q.id), 'awaiting_response');
    const detail = (await w.api.get(`/api/v1/quotes/${q.id}`)).body.data;
    assert.deepEqual(
      detail.status_changes.map((c: Body) => c.status),
      ['awaiting_response'],
    );
    assert.deepEqual(await perRole(w, people, 'quotes_awaiting_response'), everyoneButMembers(1));
    assert.deepEqual(
      (await messages(w)).map((m) => [m.channel, m.status]),
      Array.from({ length: 5 }, () => ['email', 'queued']),
    );
  });

  test('concurrency: 6 parallel sends with email_allowance=2: exactly 2 queued, 4 not_sent, one allowance notice', async () => {
    const w = await workspace({ email_allowance: '2' });
    const people = await team(w);
    const quotes = [];
    for (let i = 0; i < 6; i++) quotes.push(await makeQuote(w));
    const results = await Promise.all(quotes.map((q) => send(w, 'quote_to_customer', q.id)));
    assert.deepEqual(
      results.map((r) => r.status),
      [201, 201, 201, 201, 201, 201],
      JSON.stringify(results.map((r) => r.body)),
    );
    const statuses = (await messages(w)).map((m) => m.status).sort();
    assert.deepEqual(statuses, ['not_sent', 'not_sent', 'not_sent', 'not_sent', 'queued', 'queued']);
    assert.deepEqual(await perRole(w, people, 'email_allowance_used_up'), { owner: 1, admin: 1, manager: 0, member: 0 });
    for (const q of quotes) assert.equal(await quoteStatus(w, q.id), 'awaiting_response');
  });
});
