import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../src/domain/weeks.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';
import { runDocumentReminders, runVisitReminders, sendDocumentReminders } from '../src/modules/automations/reminders.ts';
import { setWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { buildTestApp, type Client, client, keyFor, type Res, seedUser, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';
import { setUp } from './session-client.ts';

// EXTENSIONS E24: the automations' settings (roles, validation) and the three
// reminders: quote follow-ups and invoice reminders in the daily run (09:00 local,
// `fieldwork daily --date`), visit reminders by the minute; each once, none after
// the document was answered, paid, voided or deleted.

type Body = Record<string, unknown>;
const HUB = { publicUrl: 'http://fieldwork.test', hubLinkTtl: 86_400_000 };

describe('E24 automations', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  async function workspace(timezone = 'UTC') {
    const ws = await seedWorkspace(t.db);
    await setWorkspace(t.db, ws.workspace.id, { timezone });
    return { ...ws, id: ws.workspace.id, api: client(t.app, ws.token) };
  }
  type Ws = Awaited<ReturnType<typeof workspace>>;
  const created = (res: Res) => {
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; status: string } & Body;
  };
  const contact = async (w: Ws) => created(await w.api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }));
  const sentQuote = async (w: Ws) => {
    const q = created(await w.api.post('/api/v1/quotes', { name: 'Roof', total: 500, contact_id: (await contact(w)).id }));
    assert.equal((await w.api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: q.id })).status, 201);
    return q;
  };
  const sentInvoice = async (w: Ws, due_date: string) => {
    const i = created(await w.api.post('/api/v1/invoices', { name: 'Work', total: 200, due_date, contact_id: (await contact(w)).id }));
    assert.equal((await w.api.post('/api/v1/notifications', { type: 'invoice_to_customer', module_id: i.id })).status, 201);
    return i;
  };
  const reminders = (w: Ws, type: string) =>
    t.db.selectFrom('messages').select(['module_id', 'channel', 'subject', 'body_text', 'status']).where('workspace_id', '=', w.id).where('type', '=', type).orderBy('id').execute();
  const today = () => zonedDate(Date.now(), 'UTC');
  const run = (w: Ws, date: string) => t.db.transaction().execute((trx) => sendDocumentReminders(trx, w.id, date, HUB));

  describe('GET and PUT /workspace/automations', () => {
    test('defaults, a change read back, and `workspace set` on the same settings', async () => {
      const w = await workspace();
      const owner = await setUp(t.app, t.db, w.id, w.owner.user_id);
      assert.deepEqual((await owner.get('/api/v1/workspace/automations')).body, {
        success: true,
        data: { quote_follow_up_days: [], invoice_reminder_days: [], visit_reminder_hours: 0 },
      });
      const put = await owner.put('/api/v1/workspace/automations', { quote_follow_up_days: [3, 7], invoice_reminder_days: [-3, 0, 7, 30], visit_reminder_hours: 24 });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual(put.body.data, { quote_follow_up_days: [3, 7], invoice_reminder_days: [-3, 0, 7, 30], visit_reminder_hours: 24 });
      // A field left out keeps its value.
      const partial = await owner.put('/api/v1/workspace/automations', { visit_reminder_hours: 0 });
      assert.deepEqual(partial.body.data, { quote_follow_up_days: [3, 7], invoice_reminder_days: [-3, 0, 7, 30], visit_reminder_hours: 0 });
      await setWorkspace(t.db, w.id, { 'automations.quote_follow_up_days': '1' });
      assert.deepEqual((await owner.get('/api/v1/workspace/automations')).body.data.quote_follow_up_days, [1]);
      await assert.rejects(setWorkspace(t.db, w.id, { 'automations.quote_follow_up_days': '1,1' }), /quote_follow_up_days item 1 repeats 1/);
      await assert.rejects(setWorkspace(t.db, w.id, { 'automations.visit_reminder_hours': '169' }), /from 0 to 168/);
    });

    test('bad input is 400 naming the field and item, and changes nothing', async () => {
      const w = await workspace();
      const owner = await setUp(t.app, t.db, w.id, w.owner.user_id);
      const good = { quote_follow_up_days: [2], invoice_reminder_days: [1], visit_reminder_hours: 2 };
      assert.equal((await owner.put('/api/v1/workspace/automations', good)).status, 200);
      const cases: [Body, (string | number)[]][] = [
        [{ quote_follow_up_days: [3, 61] }, ['quote_follow_up_days', 1]],
        [{ quote_follow_up_days: [0] }, ['quote_follow_up_days', 0]],
        [{ quote_follow_up_days: [5, 9, 5] }, ['quote_follow_up_days', 2]],
        [{ quote_follow_up_days: [1, 2, 3, 4] }, ['quote_follow_up_days']],
        [{ invoice_reminder_days: [-31] }, ['invoice_reminder_days', 0]],
        [{ invoice_reminder_days: [0, 91] }, ['invoice_reminder_days', 1]],
        [{ invoice_reminder_days: [1, 2, 3, 4, 5] }, ['invoice_reminder_days']],
        [{ invoice_reminder_days: [-3, -3] }, ['invoice_reminder_days', 1]],
        [{ invoice_reminder_days: [1.5] }, ['invoice_reminder_days', 0]],
        [{ visit_reminder_hours: 169 }, ['visit_reminder_hours']],
        [{ visit_reminder_hours: -1 }, ['visit_reminder_hours']],
        [{ quote_follow_up_days: '3' }, ['quote_follow_up_days']],
      ];
      for (const [body, path] of cases) {
        const res = await owner.put('/api/v1/workspace/automations', { ...body, visit_reminder_hours: body.visit_reminder_hours ?? 5 });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.success, false);
        assert.ok(
          res.body.details.some((d: { path: unknown[] }) => JSON.stringify(d.path) === JSON.stringify(path)),
          `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`,
        );
      }
      assert.deepEqual((await owner.get('/api/v1/workspace/automations')).body.data, good, 'nothing changed');
    });

    test("owners' and admins' sessions; keys by scope; other roles 403", async () => {
      const w = await workspace();
      const body = { quote_follow_up_days: [4] };
      for (const role of ['admin', 'manager', 'member'] as const) {
        const u = await seedUser(t.db, w.id, role);
        const b = await setUp(t.app, t.db, w.id, u.user_id);
        const expected = role === 'admin' ? 200 : 403;
        assert.equal((await b.get('/api/v1/workspace/automations')).status, expected, role);
        assert.equal((await b.put('/api/v1/workspace/automations', body)).status, expected, role);
      }
      const reader = client(t.app, await keyFor(t.db, w.id, 'rest', ['workspace:read']));
      assert.equal((await reader.get('/api/v1/workspace/automations')).status, 200);
      assert.equal((await reader.put('/api/v1/workspace/automations', body)).status, 403);
      const writer = client(t.app, await keyFor(t.db, w.id, 'rest', ['workspace:write']));
      assert.equal((await writer.put('/api/v1/workspace/automations', { quote_follow_up_days: [9] })).status, 200);
      const other = client(t.app, await keyFor(t.db, w.id, 'rest', ['contacts:read']));
      assert.equal((await other.get('/api/v1/workspace/automations')).status, 403);
      assert.deepEqual((await reader.get('/api/v1/workspace/automations')).body.data.quote_follow_up_days, [9]);
    });
  });

  describe('quote follow-ups and invoice reminders', () => {
    test('a follow-up on each configured day after sending, once, with the hub link; none after an answer', async () => {
      const w = await workspace();
      await setWorkspace(t.db, w.id, { 'automations.quote_follow_up_days': '2,5', reply_to: 'office@acme.test' });
      const q = await sentQuote(w);
      const answered = await sentQuote(w);
      assert.deepEqual(await run(w, addDays(today(), 1)), []);
      const answer = await w.api.put(`/api/v1/quotes/${answered.id}/status`, { status: 'accepted' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const day2 = await run(w, addDays(today(), 2));
      assert.deepEqual(day2.map(({ type, module_id, step }) => ({ type, module_id, step })), [{ type: 'quote_follow_up', module_id: q.id, step: 2 }]);
      assert.deepEqual(await run(w, addDays(today(), 2)), [], 'the same day again gives nothing');
      assert.deepEqual((await run(w, addDays(today(), 5))).map((r) => [r.module_id, r.step]), [[q.id, 5]]);
      const sent = await reminders(w, 'quote_follow_up');
      assert.equal(sent.length, 2);
      assert.match(sent[0].subject ?? '', /^Following up: quote #\d+ from Acme/);
      assert.match(sent[0].body_text, /http:\/\/fieldwork\.test\/hub\/[A-Za-z0-9_-]+\/quotes\//);
      assert.equal((await t.db.selectFrom('customer_reminders').select('step').where('workspace_id', '=', w.id).execute()).length, 2);
      // Deleted: nothing.
      const gone = await sentQuote(w);
      assert.equal((await w.api.delete(`/api/v1/quotes/${gone.id}`)).status, 200);
      assert.deepEqual(await run(w, addDays(today(), 2)), []);
    });

    test('a follow-up goes by SMS too where the SMS plan, the type and the client consent allow it, in the workspace template', async () => {
      const w = await workspace();
      await setWorkspace(t.db, w.id, {
        'automations.quote_follow_up_days': '1',
        sms_provider: 'log',
        sms_plan: 'true',
        'notifications.quote_follow_up.sms': 'true',
        'templates.quote_follow_up.subject': 'Still thinking about quote {{number}}?',
      });
      const c = created(await w.api.post('/api/v1/contacts', { first_name: 'Sam', last_name: 'Sms', email: 'sam@example.com', phone: '+15550002', info: { sms_consent: { opt_in: true } } }));
      const q = created(await w.api.post('/api/v1/quotes', { name: 'Deck', total: 900, contact_id: c.id }));
      assert.equal((await w.api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: q.id })).status, 201);
      const [sent] = await run(w, addDays(today(), 1));
      assert.equal(sent.message_ids.length, 2);
      const rows = await reminders(w, 'quote_follow_up');
      assert.deepEqual(rows.map((m) => m.channel), ['email', 'sms']);
      assert.match(rows[0].subject ?? '', /^Still thinking about quote \d+\?$/, 'the workspace template');
      assert.match(rows[1].body_text, /reminder about quote #\d+ .*\/hub\//);
    });

    test('invoice reminders relative to the due date while a balance is left; none once paid, voided or deleted', async () => {
      const w = await workspace();
      await setWorkspace(t.db, w.id, { 'automations.invoice_reminder_days': '-2,0,3' });
      const due = addDays(today(), 10);
      const open = await sentInvoice(w, due);
      const partly = await sentInvoice(w, due);
      const paid = await sentInvoice(w, due);
      const voided = await sentInvoice(w, due);
      const deleted = await sentInvoice(w, due);
      assert.equal((await w.api.post(`/api/v1/invoices/${partly.id}/payments`, { amount: 50 })).status, 201);
      assert.equal((await w.api.post(`/api/v1/invoices/${paid.id}/payments`, { amount: 200 })).status, 201);
      const v = await w.api.put(`/api/v1/invoices/${voided.id}`, { status: 'cancelled' });
      assert.equal(v.status, 200, JSON.stringify(v.body));
      assert.equal((await w.api.delete(`/api/v1/invoices/${deleted.id}`)).status, 200);
      const before = await run(w, addDays(due, -2));
      assert.deepEqual(before.map((r) => [r.module_id, r.step]), [[open.id, -2], [partly.id, -2]]);
      assert.deepEqual(await run(w, addDays(due, -1)), []);
      assert.deepEqual((await run(w, due)).map((r) => r.module_id), [open.id, partly.id]);
      assert.deepEqual(await run(w, due), []);
      const sent = await reminders(w, 'invoice_reminder');
      assert.equal(sent.length, 4);
      assert.ok(sent.every((m) => m.channel === 'email'));
      assert.match(sent.find((m) => m.module_id === partly.id)?.body_text ?? '', /Balance due: \$150\.00/);
    });

    test('the daily run goes out at 09:00 local time, not before, once per day', async () => {
      const w = await workspace('America/New_York');
      await setWorkspace(t.db, w.id, { 'automations.invoice_reminder_days': '0' });
      const due = '2031-05-06';
      const inv = await sentInvoice(w, due);
      const at = (hhmm: string) => Date.parse(`${due}T${hhmm}:00-04:00`);
      const only = async (ms: number) => {
        await runDocumentReminders(t.db, ms, undefined, HUB);
        return (await reminders(w, 'invoice_reminder')).length;
      };
      assert.equal(await only(at('08:59')), 0);
      assert.equal(await only(at('09:00')), 1);
      assert.equal(await only(at('15:00')), 1);
      assert.equal((await reminders(w, 'invoice_reminder'))[0].module_id, inv.id);
    });

    test('`fieldwork daily --date` sends the day\'s reminders at once and lists them as reminders_sent', async () => {
      const w = await workspace();
      await setWorkspace(t.db, w.id, { 'automations.quote_follow_up_days': '3', 'automations.invoice_reminder_days': '7' });
      const q = await sentQuote(w);
      const inv = await sentInvoice(w, addDays(today(), -4));
      const date = addDays(today(), 3);
      const first = await spawnCli(t.url, ['daily', '--workspace', String(w.id), '--date', date, '--json']);
      assert.equal(first.code, 0, first.stderr);
      const out = JSON.parse(first.stdout);
      const queued = await t.db
        .selectFrom('messages')
        .select(['id', 'type', 'module_id'])
        .where('workspace_id', '=', w.id)
        .where('type', 'in', ['quote_follow_up', 'invoice_reminder'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        queued.map((m) => [m.type, m.module_id]),
        [
          ['quote_follow_up', q.id],
          ['invoice_reminder', inv.id],
        ],
      );
      assert.deepEqual(out.reminders_sent, queued.map((m) => m.id), 'the messages it queued');
      const again = await spawnCli(t.url, ['daily', '--workspace', String(w.id), '--date', date, '--json']);
      assert.deepEqual(JSON.parse(again.stdout).reminders_sent, []);
      const text = await spawnCli(t.url, ['daily', '--workspace', String(w.id), '--date', date]);
      assert.match(text.stdout, /Reminder messages: none/);
      assert.equal((await reminders(w, 'quote_follow_up')).length, 1);
      assert.equal((await reminders(w, 'invoice_reminder')).length, 1);
    });
  });

  describe('visit reminders', () => {
    async function visit(w: Ws, start: Date, extra: Body = {}) {
      const c = await contact(w);
      const job = created(await w.api.post('/api/v1/jobs', { name: 'Gutters', contact_id: c.id }));
      const iso = start.toISOString();
      return created(
        await w.api.post('/api/v1/events', {
          name: 'Gutter check',
          type: 'appointment',
          job_id: job.id,
          start_date: iso.slice(0, 10),
          end_date: iso.slice(0, 10),
          start_time: iso.slice(11, 16),
          end_time: null,
          ...extra,
        }),
      );
    }
    const HOUR = 3_600_000;

    test('that many hours before the start, once; a visit moved into the window gets one; cancelled or started get none', async () => {
      const w = await workspace();
      await setWorkspace(t.db, w.id, { 'automations.visit_reminder_hours': '24' });
      const base = Date.parse('2030-01-10T12:00:00Z');
      const soon = await visit(w, new Date(base + 30 * HOUR));
      const later = await visit(w, new Date(base + 72 * HOUR));
      const cancelled = await visit(w, new Date(base + 20 * HOUR), { status: 'cancelled' });
      assert.ok(cancelled);
      assert.equal(await runVisitReminders(t.db, base, undefined, HUB), 0);
      // 6 hours later: `soon` is 24 hours away.
      assert.equal(await runVisitReminders(t.db, base + 6 * HOUR, undefined, HUB), 1);
      assert.equal(await runVisitReminders(t.db, base + 6 * HOUR + 60_000, undefined, HUB), 0, 'once');
      let sent = await reminders(w, 'appointment_reminder');
      assert.deepEqual(
        sent.map((m) => m.module_id),
        [soon.id],
      );
      // `later` moved to 10 hours away: its reminder time has passed, it has not started.
      const moved = new Date(base + 16 * HOUR).toISOString();
      assert.equal((await w.api.put(`/api/v1/events/${later.id}`, { start_date: moved.slice(0, 10), end_date: moved.slice(0, 10), start_time: moved.slice(11, 16) })).status, 200);
      assert.equal(await runVisitReminders(t.db, base + 6 * HOUR + 120_000, undefined, HUB), 1);
      sent = await reminders(w, 'appointment_reminder');
      assert.deepEqual(
        sent.map((m) => m.module_id),
        [soon.id, later.id],
      );
      // Started already: nothing.
      assert.equal(await runVisitReminders(t.db, base + 31 * HOUR, undefined, HUB), 0);
    });

    test('an all-day visit is reminded before 09:00 that day', async () => {
      const w = await workspace('Europe/Paris');
      await setWorkspace(t.db, w.id, { 'automations.visit_reminder_hours': '2' });
      const v = await visit(w, new Date('2030-03-04T00:00:00Z'), { all_day: true, start_time: null });
      const at = (hhmm: string) => Date.parse(`2030-03-04T${hhmm}:00+01:00`);
      assert.equal(await runVisitReminders(t.db, at('06:59'), undefined, HUB), 0);
      assert.equal(await runVisitReminders(t.db, at('07:00'), undefined, HUB), 1);
      assert.deepEqual((await reminders(w, 'appointment_reminder')).map((m) => m.module_id), [v.id]);
    });
  });
});

export type { Client };
