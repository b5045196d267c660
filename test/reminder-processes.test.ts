import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { zonedDate, zonedWallClock } from '../src/domain/zoned-time.ts';
import { setWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { killAll, type Proc, startWorker } from './processes.ts';
import { type SmtpReceiver, startSmtpReceiver } from './smtp-receiver.ts';
import { waitFor } from './webhook-receiver.ts';

// EXTENSIONS E24 "once, across restarts and processes": real `fieldwork worker`
// processes against one database and a real SMTP server. Two workers started at
// once give each invoice reminder and visit reminder once; a worker killed with
// SIGKILL in the middle of its run leaves nothing half done, and the next one
// sends each reminder once (an email whose delivery was cut may arrive twice with
// the same Message-ID, as every email of the worker).

/** A fixed-offset zone where it is now between 10:00 and 20:00, so the 09:00 daily run is due. */
function zoneAfterNine(): string {
  for (let h = -12; h <= 14; h++) {
    const zone = h === 0 ? 'UTC' : `Etc/GMT${h > 0 ? '-' : '+'}${Math.abs(h)}`; // Etc/GMT-3 is UTC+3
    const { time } = zonedWallClock(Date.now(), zone);
    if (time >= '10:00' && time < '20:00') return zone;
  }
  throw new Error('no zone');
}

describe('reminders from worker processes', { timeout: 240_000 }, () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  const procs: Proc[] = [];
  let env: Record<string, string>;
  before(async () => {
    t = await buildTestApp();
    smtp = await startSmtpReceiver();
    env = { DATABASE_URL: t.url, SMTP_URL: smtp.url, MESSAGE_TIMEOUT: '2s', MESSAGE_RETRY_SCHEDULE: '100ms', PUBLIC_URL: 'http://fieldwork.test' };
  });
  afterEach(() => killAll(procs));
  after(async () => {
    await killAll(procs);
    await smtp.close();
    await t.close();
  });

  /** A workspace whose daily run is due now, with `n` unpaid invoices due today and `v` visits starting in 3 hours, reminders on. */
  async function seed(n: number, v: number) {
    const ws = await seedWorkspace(t.db);
    const zone = zoneAfterNine();
    await setWorkspace(t.db, ws.workspace.id, {
      timezone: zone,
      reply_to: 'office@acme.test',
      'automations.invoice_reminder_days': '0',
      'automations.visit_reminder_hours': '24',
    });
    const api = client(t.app, ws.token);
    const today = zonedDate(Date.now(), zone);
    const invoices: number[] = [];
    for (let i = 0; i < n; i++) {
      const c = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: `Client ${i}`, email: `client${i}@example.test` })).body.data;
      const inv = await api.post('/api/v1/invoices', { name: `Work ${i}`, total: 100, due_date: today, contact_id: c.id });
      assert.equal(inv.status, 201, JSON.stringify(inv.body));
      assert.equal((await api.put(`/api/v1/invoices/${inv.body.data.id}`, { status: 'sent' })).status, 200);
      invoices.push(inv.body.data.id);
    }
    const visits: number[] = [];
    const start = zonedWallClock(Date.now() + 3 * 3_600_000, zone);
    for (let i = 0; i < v; i++) {
      const c = (await api.post('/api/v1/contacts', { first_name: 'Vic', last_name: `Visit ${i}`, email: `visit${i}@example.test` })).body.data;
      const job = (await api.post('/api/v1/jobs', { name: 'Gutters', contact_id: c.id })).body.data;
      const e = await api.post('/api/v1/events', { name: 'Visit', type: 'appointment', job_id: job.id, start_date: start.date, end_date: start.date, start_time: start.time });
      assert.equal(e.status, 201, JSON.stringify(e.body));
      visits.push(e.body.data.id);
    }
    return { id: ws.workspace.id, invoices, visits };
  }

  const messagesOf = (workspaceId: number, type: string) =>
    t.db.selectFrom('messages').select(['module_id', 'status', 'message_id']).where('workspace_id', '=', workspaceId).where('type', '=', type).orderBy('module_id').execute();
  const delivered = (ids: string[]) => {
    const got = new Set(smtp.mails.filter((m) => m.accepted).map((m) => /^Message-ID:\s*<([^@>\s]+)@/im.exec(m.raw)?.[1] ?? ''));
    return ids.every((id) => got.has(id));
  };

  test('two workers at once: each reminder once, every one delivered', async () => {
    const ws = await seed(20, 5);
    procs.push(...(await Promise.all([startWorker(env), startWorker(env)])));
    await waitFor(
      'every reminder queued and sent',
      async () => {
        const all = [...(await messagesOf(ws.id, 'invoice_reminder')), ...(await messagesOf(ws.id, 'appointment_reminder'))];
        return all.length === 25 && all.every((m) => m.status === 'sent');
      },
      90_000,
    );
    const invoiceReminders = await messagesOf(ws.id, 'invoice_reminder');
    const visitReminders = await messagesOf(ws.id, 'appointment_reminder');
    assert.deepEqual(
      invoiceReminders.map((m) => m.module_id),
      ws.invoices,
    );
    assert.deepEqual(
      visitReminders.map((m) => m.module_id),
      ws.visits,
    );
    const ids = [...invoiceReminders, ...visitReminders].map((m) => m.message_id);
    assert.ok(delivered(ids));
    // E10: the business's name as From, its reply_to as Reply-To.
    const mail = smtp.mails.find((m) => m.raw.includes(`<${invoiceReminders[0].message_id}@`))!;
    assert.match(mail.raw, /^Reply-To: office@acme\.test/im);
    assert.match(mail.raw, /^From: "?Acme \d+"? </im);
    assert.match(mail.raw, /^Subject: Reminder: invoice #\d+ from Acme \d+/im);
    // Both workers ran their passes (the daily run's row is one, whoever took it).
    const runs = await t.db.selectFrom('scheduled_runs').select('job').where('workspace_id', '=', ws.id).where('job', '=', 'customer_reminders').execute();
    assert.equal(runs.length, 1);
    // Another pass of either changes nothing.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await messagesOf(ws.id, 'invoice_reminder')).length, 20);
  });

  test('a worker killed with SIGKILL mid-run: the next one sends each reminder once', async () => {
    const ws = await seed(60, 0);
    const first = await startWorker(env);
    procs.push(first);
    // Killed as soon as its run has begun: whatever it had not committed is gone with it.
    first.child.kill('SIGKILL');
    await first.exited;
    const half = (await messagesOf(ws.id, 'invoice_reminder')).length;
    assert.ok(half === 0 || half === 60, `the run commits whole or not at all (${half})`);
    procs.push(await startWorker(env));
    await waitFor(
      'every reminder sent',
      async () => {
        const all = await messagesOf(ws.id, 'invoice_reminder');
        return all.length === 60 && all.every((m) => m.status === 'sent');
      },
      90_000,
    );
    const all = await messagesOf(ws.id, 'invoice_reminder');
    assert.deepEqual(
      all.map((m) => m.module_id),
      ws.invoices,
    );
    assert.ok(delivered(all.map((m) => m.message_id)));
    const rows = await t.db.selectFrom('customer_reminders').select('document_id').where('workspace_id', '=', ws.id).execute();
    assert.equal(rows.length, 60);
  });
});
