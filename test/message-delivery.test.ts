import assert from 'node:assert/strict';
import net from 'node:net';
import { after, afterEach, before, describe, test } from 'node:test';
import { setWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { MAX_MESSAGE_ATTEMPTS } from '../src/outbox/messages.ts';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, type CliRun, client, outboxEvents, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';
import {
  closedPort,
  leaves,
  parseMime,
  type SilentServer,
  type SmtpBehaviour,
  type SmtpReceiver,
  type StatusServer,
  startSilentServer,
  startSmtpReceiver,
  startStatusServer,
} from './smtp-receiver.ts';
import { type Receiver, startReceiver, waitFor } from './webhook-receiver.ts';

// Customer emails and SMS end to end (SPEC Notifications, docs/operator.md
// `fieldwork messages`): POST /notifications queues them, the worker hands
// them to a real SMTP server or HTTP SMS provider on 127.0.0.1, and the
// `messages` row records what happened.

type Ws = Awaited<ReturnType<typeof seedWorkspace>>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

const MAIL_FROM = 'Acme Field Office <office@acme-field.test>';
const RETRY_MS = 50;
const TIMEOUT_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Room for any (wrong) further attempt to show up: several retry intervals. */
const QUIET_MS = RETRY_MS * 6;
/**
 * For tests of what a good server receives, not of time-outs: an attempt on a loaded
 * machine can outlast 2 x 300 ms, be cut off and be sent again (at least once, as
 * designed), which would count as a second copy.
 */
const ROOMY = { messageTimeout: 10_000 };
/** What an SMTP attempt cut off at MESSAGE_TIMEOUT records (greeting or socket timeout). */
const SMTP_TIMEOUT_ERROR = /ETIMEDOUT|greeting|time ?out/i;

const MESSAGE_FIELDS = [
  'attempts',
  'channel',
  'contact_id',
  'created_at',
  'error',
  'id',
  'module_id',
  'module_type',
  'next_attempt_at',
  'sent_at',
  'status',
  'subject',
  'to',
  'type',
];



describe('message delivery', () => {
  let t: TestApp;
  let worker: Worker | null = null;
  let closers: (() => Promise<void>)[] = [];
  let seq = 0;

  before(async () => {
    t = await buildTestApp({
      MAIL_FROM,
      MESSAGE_RETRY_SCHEDULE: `${RETRY_MS}ms,${RETRY_MS}ms,${RETRY_MS}ms,${RETRY_MS}ms`,
      MESSAGE_TIMEOUT: `${TIMEOUT_MS}ms`,
    });
    assert.equal(t.config.smtpUrl, null, 'the app itself has no SMTP_URL: each worker names its server');
  });
  afterEach(async () => {
    // Servers first: a hanging server's sockets are dropped, so an attempt still in
    // flight ends at once and stop() does not wait for it.
    for (const close of closers) await close();
    closers = [];
    await worker?.stop();
    worker = null;
    // A test that leaves a message queued must not have it sent by the next test's worker.
    await t.db
      .updateTable('messages')
      .set({ status: 'failed', error: 'parked by the test cleanup', next_attempt_at: null })
      .where('status', '=', 'queued')
      .execute();
  });
  after(async () => {
    await t.close();
  });

  const startWorker = (overrides: Partial<TestApp['config']> = {}) => {
    worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, ...overrides }, pollMs: 20 });
    worker.start();
    return worker;
  };
  const smtp = async (b: SmtpBehaviour = {}): Promise<SmtpReceiver> => {
    const s = await startSmtpReceiver(b);
    closers.push(s.close);
    return s;
  };
  const silent = async (): Promise<SilentServer> => {
    const s = await startSilentServer();
    closers.push(s.close);
    return s;
  };
  const statusServer = async (statuses: number[]): Promise<StatusServer> => {
    const s = await startStatusServer(statuses);
    closers.push(s.close);
    return s;
  };
  const httpReceiver = async (): Promise<Receiver> => {
    const r = await startReceiver();
    closers.push(r.close);
    return r;
  };

  interface CustomerOpts {
    phone?: string | null;
    smsOptIn?: boolean;
  }
  const newCustomer = async (ws: Ws, opts: CustomerOpts = {}) => {
    const n = ++seq;
    const res = await client(t.app, ws.token).post('/api/v1/contacts', {
      first_name: `Carla${n}`,
      last_name: 'Customer',
      email: `carla${n}@customer.test`,
      phone: opts.phone ?? null,
      ...(opts.smsOptIn ? { info: { sms_consent: { opt_in: true } } } : {}),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; email: string; first_name: string; phone: string | null };
  };
  const newQuote = async (ws: Ws, contactId: number) => {
    const res = await client(t.app, ws.token).post('/api/v1/quotes', { contact_id: contactId, name: 'Roof repair' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; number: number; status: string };
  };
  const newInvoice = async (ws: Ws, contactId: number) => {
    const res = await client(t.app, ws.token).post('/api/v1/invoices', { contact_id: contactId, name: 'INV-1' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data as { id: number; status: string };
  };
  const notify = async (ws: Ws, type: string, moduleId: number) => {
    const res = await client(t.app, ws.token).post('/api/v1/notifications', { type, module_id: moduleId });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  };
  const messagesOf = (wsId: number, moduleId?: number) => {
    let q = t.db.selectFrom('messages').selectAll().where('workspace_id', '=', wsId);
    if (moduleId !== undefined) q = q.where('module_id', '=', moduleId);
    return q.orderBy('id').execute();
  };
  const messageRow = async (id: number) => t.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const onlyMessage = async (wsId: number, channel: 'email' | 'sms') => {
    const rows = (await messagesOf(wsId)).filter((m) => m.channel === channel);
    assert.equal(rows.length, 1, `one ${channel} message`);
    return rows[0];
  };
  const waitStatus = (id: number, statuses: string[], ms = 10_000) =>
    waitFor(`message ${id} to be ${statuses.join(' or ')}`, async () => statuses.includes((await messageRow(id)).status), ms);
  /** A quote email queued for a new customer: the workspace, contact, quote and the email row. */
  const queuedQuoteEmail = async (opts: CustomerOpts = {}) => {
    const ws = await seedWorkspace(t.db);
    const contact = await newCustomer(ws, opts);
    const quote = await newQuote(ws, contact.id);
    await notify(ws, 'quote_to_customer', quote.id);
    const email = await onlyMessage(ws.workspace.id, 'email');
    assert.equal(email.status, 'queued');
    assert.equal(email.attempts, 0);
    return { ws, contact, quote, email };
  };
  /** A workspace allowed to text quotes, through `provider`, and a consenting customer with a phone. */
  const smsWorkspace = async (provider: string) => {
    const ws = await seedWorkspace(t.db);
    await setWorkspace(t.db, ws.workspace.id, { sms_provider: provider, sms_plan: 'true', 'notifications.quote_to_customer.sms': 'true' });
    const phone = `+1555000${String(++seq).padStart(4, '0')}`;
    const contact = await newCustomer(ws, { phone, smsOptIn: true });
    const quote = await newQuote(ws, contact.id);
    await notify(ws, 'quote_to_customer', quote.id);
    const sms = await onlyMessage(ws.workspace.id, 'sms');
    assert.equal(sms.status, 'queued');
    assert.equal(sms.recipient, phone);
    return { ws, contact, quote, sms, phone };
  };

  describe('email', () => {
    test('a quote email reaches the SMTP server: envelope, From = MAIL_FROM, To, Subject, text and HTML parts, Message-ID; the row is sent', async () => {
      const rx = await smtp();
      const { ws, contact, quote, email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url, ...ROOMY });
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);

      assert.equal(rx.mails.length, 1, 'exactly one copy');
      const [mail] = rx.mails;
      assert.ok(mail.accepted);
      assert.equal(mail.from, 'office@acme-field.test', 'envelope MAIL FROM is the MAIL_FROM address');
      assert.deepEqual(mail.to, [contact.email], 'envelope RCPT TO is the contact');

      const mime = parseMime(mail.raw);
      // E10: the workspace's name on MAIL_FROM's address; no Reply-To unless the workspace sets one.
      assert.equal(mime.headers.from, `${ws.workspace.name} <office@acme-field.test>`);
      assert.equal(mime.headers['reply-to'], undefined);
      assert.equal(mime.headers.to, contact.email);
      assert.equal(mime.headers.subject, `Quote #${quote.number} from ${ws.workspace.name}`);
      assert.equal(mime.headers.subject, email.subject);
      assert.equal(mime.headers['message-id'], `<${email.message_id}@fieldwork>`);
      assert.match(email.message_id, UUID);
      assert.equal(mime.contentType, 'multipart/alternative');
      const parts = leaves(mime);
      const text = parts.filter((p) => p.contentType === 'text/plain');
      const html = parts.filter((p) => p.contentType === 'text/html');
      assert.equal(text.length, 1, 'one text/plain part');
      assert.equal(html.length, 1, 'one text/html part');
      const norm = (s: string) => s.replace(/\r\n/g, '\n').trim();
      assert.equal(norm(text[0].body), norm(email.body_text));
      assert.equal(norm(html[0].body), norm(email.body_html!));
      assert.match(text[0].body, new RegExp(`Hello ${contact.first_name},`));
      assert.match(text[0].body, new RegExp(`quote #${quote.number}`));
      assert.match(html[0].body, /<p>Hello Carla\d+,<\/p>/);

      const row = await messageRow(email.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 1);
      assert.equal(row.error, null);
      assert.match(row.sent_at!, ISO);
      assert.ok(row.sent_at! >= row.created_at);
      assert.equal(row.next_attempt_at, null);
      assert.equal(row.locked_by, null);
      await sleep(QUIET_MS);
      assert.equal(rx.mails.length, 1, 'a sent message is not sent again');
      assert.equal((await messageRow(email.id)).attempts, 1);
    });

    test('E10: a quote and an invoice email as caught by the SMTP server: number, line items, totals with the currency; Reply-To; From named after the workspace, quoted', async () => {
      const rx = await smtp();
      const ws = await seedWorkspace(t.db, 'Smith, "Bob" & Sons');
      await setWorkspace(t.db, ws.workspace.id, { reply_to: 'office@smith-sons.test', currency: 'gbp' });
      const contact = await newCustomer(ws);
      const api = client(t.app, ws.token);
      const lines = [
        { name: 'Fence panel', quantity: 6, unitPrice: 45.5 },
        { name: 'Post & <cap>', quantity: 2, unitPrice: 12 },
      ];
      const quote = (await api.post('/api/v1/quotes', { contact_id: contact.id, line_items: lines, tax_rate: 20 })).body.data;
      const invoice = (await api.post('/api/v1/invoices', { contact_id: contact.id, line_items: lines })).body.data;
      await notify(ws, 'quote_to_customer', quote.id);
      await notify(ws, 'invoice_to_customer', invoice.id);
      const emails = (await messagesOf(ws.workspace.id)).filter((m) => m.channel === 'email');
      startWorker({ smtpUrl: rx.url, ...ROOMY });
      for (const e of emails) await waitStatus(e.id, ['sent', 'failed', 'not_sent']);
      assert.equal(rx.mails.length, 2);
      // Sent side by side: in either order.
      const part = (mime: ReturnType<typeof parseMime>, type: string) => leaves(mime).find((p) => p.contentType === type)?.body ?? '';
      const parsed = rx.mails.map((m) => parseMime(m.raw));
      const q = parsed.find((m) => part(m, 'text/plain').includes('sent you quote'))!;
      const i = parsed.find((m) => part(m, 'text/plain').includes('sent you invoice'))!;
      assert.ok(q && i);
      for (const mime of [q, i]) {
        assert.equal(mime.headers.from, '"Smith, \\"Bob\\" & Sons" <office@acme-field.test>', 'the name quoted: its comma does not split the address list');
        assert.equal(mime.headers['reply-to'], 'office@smith-sons.test');
      }
      assert.equal(rx.mails[0].from, 'office@acme-field.test', 'the envelope sender stays MAIL_FROM');
      const qText = part(q, 'text/plain');
      for (const want of [`quote #${quote.number}`, '- Fence panel: 6 x £45.50 = £273.00', '- Post & <cap>: 2 x £12.00 = £24.00', 'Subtotal: £297.00', 'Tax (20%): £59.40', 'Total: £356.40 GBP']) {
        assert.ok(qText.includes(want), `quote text has ${want}:\n${qText}`);
      }
      const qHtml = part(q, 'text/html');
      assert.ok(qHtml.includes('<li>Post &#38; &#60;cap&#62;: 2 x £12.00 = £24.00</li>'), qHtml);
      assert.ok(qHtml.includes('Total: £356.40 GBP'), qHtml);
      const iText = part(i, 'text/plain');
      for (const want of [`invoice #${invoice.number}`, '- Fence panel: 6 x £45.50 = £273.00', 'Total: £297.00 GBP', 'Balance due: £297.00 GBP']) {
        assert.ok(iText.includes(want), `invoice text has ${want}:\n${iText}`);
      }
      assert.ok(part(i, 'text/html').includes('<li>Fence panel: 6 x £45.50 = £273.00</li>'));
    });

    test('without SMTP_URL the email is not_sent, saying so, after one attempt; nothing reaches any server', async () => {
      const rx = await smtp();
      const { email } = await queuedQuoteEmail();
      startWorker(); // t.config: no SMTP_URL
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'not_sent');
      assert.match(row.error!, /SMTP_URL/);
      assert.equal(row.attempts, 1);
      assert.equal(row.sent_at, null);
      assert.equal(row.next_attempt_at, null, 'never tried again');
      assert.equal(row.locked_by, null);
      assert.equal(rx.connections, 0);
      assert.equal(rx.mails.length, 0);
    });

    test('a 550 to RCPT TO fails the email at once: one attempt, the 550 kept, no retry', async () => {
      const rx = await smtp({ rcpt: () => ({ code: 550, message: 'No such mailbox here' }) });
      const { email, contact } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url, ...ROOMY });
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 1);
      assert.match(row.error!, /550/);
      assert.match(row.error!, /No such mailbox here/);
      assert.equal(row.sent_at, null);
      assert.equal(row.next_attempt_at, null);
      assert.deepEqual(rx.rcpts, [contact.email], 'RCPT TO was tried exactly once');
      assert.equal(rx.connections, 1);
      assert.equal(rx.mails.length, 0);
    });

    test('a 451 to RCPT TO is temporary: retried on the schedule, then sent; one accepted copy', async () => {
      const rx = await smtp({ rcpt: (n) => (n === 1 ? { code: 451, message: 'Try again later' } : null) });
      const { email, contact } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url, ...ROOMY });
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 2, 'one failure + the send');
      assert.equal(row.error, null, 'a sent message shows no error');
      assert.ok(row.sent_at);
      assert.deepEqual(rx.rcpts, [contact.email, contact.email]);
      assert.equal(rx.mails.length, 1);
      assert.ok(rx.mails[0].accepted);
    });

    test('issue 25: a message that failed an attempt and waits for the next shows as retrying, with its next attempt, in fieldwork messages', async () => {
      const rx = await smtp({ rcpt: () => ({ code: 451, message: 'Try again later' }) });
      const { email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url, messageRetrySchedule: [3_600_000], ...ROOMY });
      await waitFor('the first failure', async () => (await messageRow(email.id)).attempts >= 1);
      await worker!.stop();
      worker = null;
      const workspaceId = (await t.db.selectFrom('messages').select('workspace_id').where('id', '=', email.id).executeTakeFirstOrThrow()).workspace_id;
      const r = await spawnCli(t.url, ['messages', '--workspace', String(workspaceId), '--status', 'retrying', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const [m] = (JSON.parse(r.stdout) as { messages: { id: number; status: string; next_attempt_at: string; attempts: number }[] }).messages;
      assert.deepEqual([m.id, m.status, m.attempts], [email.id, 'retrying', 1]);
      assert.ok(Math.abs(Date.parse(m.next_attempt_at) - (Date.now() + 3_600_000)) < 120_000, m.next_attempt_at);
      const queued = await spawnCli(t.url, ['messages', '--workspace', String(workspaceId), '--status', 'queued', '--json']);
      assert.deepEqual(JSON.parse(queued.stdout).messages, []);
      const text = await spawnCli(t.url, ['messages', '--workspace', String(workspaceId)]);
      assert.match(text.stdout, /NEXT ATTEMPT/);
      assert.match(text.stdout, /\bretrying\b/);
      await t.db.updateTable('messages').set({ status: 'failed', next_attempt_at: null }).where('id', '=', email.id).execute();
    });

    test('a 451 after DATA twice: sent on the third attempt, every copy with the same Message-ID, one accepted', async () => {
      const rx = await smtp({ data: (n) => (n <= 2 ? { code: 451, message: 'Local problem, try later' } : null) });
      const { email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url, ...ROOMY });
      // Between attempts: queued again with the 451 and a next attempt.
      await waitFor('the first failure', async () => (await messageRow(email.id)).attempts >= 1);
      const between = await messageRow(email.id);
      if (between.attempts === 1) {
        assert.equal(between.status, 'queued');
        assert.match(between.error!, /451/);
        assert.ok(between.next_attempt_at);
      }
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 3);
      assert.equal(rx.mails.length, 3);
      assert.deepEqual(
        rx.mails.map((m) => m.accepted),
        [false, false, true],
      );
      assert.deepEqual(
        rx.mails.map((m) => parseMime(m.raw).headers['message-id']),
        [1, 2, 3].map(() => `<${email.message_id}@fieldwork>`),
        'Message-ID is stable across attempts',
      );
    });

    test('a server that never greets: each attempt is cut off at MESSAGE_TIMEOUT; failed after 5 attempts', async () => {
      const server = await silent();
      const { email } = await queuedQuoteEmail();
      const started = Date.now();
      startWorker({ smtpUrl: server.url });
      await waitFor('the first attempt to time out at MESSAGE_TIMEOUT (300 ms)', async () => (await messageRow(email.id)).attempts >= 1, TIMEOUT_MS * 6);
      const first = await messageRow(email.id);
      assert.equal(first.status, 'queued', 'a timeout is retried');
      assert.match(first.error!, SMTP_TIMEOUT_ERROR);
      assert.ok(first.next_attempt_at);
      assert.ok(Date.now() - started >= TIMEOUT_MS - 20, 'the first attempt waited for MESSAGE_TIMEOUT');
      await waitStatus(email.id, ['sent', 'failed', 'not_sent'], 15_000);
      const took = Date.now() - started;
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, MAX_MESSAGE_ATTEMPTS);
      assert.match(row.error!, SMTP_TIMEOUT_ERROR);
      assert.equal(row.next_attempt_at, null);
      assert.equal(row.locked_by, null);
      assert.equal(server.connectedAt.length, 5, 'one connection per attempt, no sixth');
      const minimum = 5 * TIMEOUT_MS + 4 * RETRY_MS;
      assert.ok(took >= minimum - 50, `five timeouts and four retry delays take at least ~${minimum} ms (took ${took})`);
      assert.ok(took < 8_000, `but not much more (took ${took} ms)`);
    });

    // MESSAGE_TIMEOUT must reach nodemailer itself (senders.ts builds an SMTPTransport:
    // createTransport({url, ...}) keeps only the URL's options), or a given-up attempt's
    // connection stays open on nodemailer's defaults (30 s greeting, 10 min idle).
    test('an attempt that gives up closes its connection: nothing is left open to a server that never greets', async () => {
      const server = await silent();
      const { email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: server.url });
      await waitFor('the first attempt to give up', async () => (await messageRow(email.id)).attempts >= 1, TIMEOUT_MS * 6);
      const gaveUp = Date.now();
      await waitFor('the first connection to be closed', () => server.closedAt.length >= 1, TIMEOUT_MS * 3).catch(() => {});
      assert.ok(
        server.closedAt.length >= 1,
        `the first attempt's connection is still open ${Date.now() - gaveUp} ms after the attempt was recorded (${server.open} open): MESSAGE_TIMEOUT never reached nodemailer`,
      );
      await waitStatus(email.id, ['sent', 'failed', 'not_sent'], 15_000);
      await waitFor('every connection to be closed', () => server.open === 0, TIMEOUT_MS * 3).catch(() => {});
      assert.equal(server.open, 0, 'no connection left open once the message is failed');
      assert.equal(server.closedAt.length, server.connectedAt.length);
    });

    // The same, seen from the customer: a server slower to answer DATA than the
    // timeout must not deliver on an abandoned connection while the row records a
    // failure (and the retry sends another copy).
    test('an attempt the worker gave up on delivers nothing behind its back: the client is gone before a late 250', async () => {
      const replyDelay = 1_000; // > 2 x MESSAGE_TIMEOUT (the attempt's own deadline) and > MESSAGE_TIMEOUT (socket idle)
      const rx = await smtp({ dataReplyDelayMs: replyDelay });
      const { email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: rx.url });
      await waitFor('the first attempt to give up', async () => (await messageRow(email.id)).attempts >= 1, replyDelay * 2);
      const first = await messageRow(email.id);
      assert.notEqual(first.status, 'sent');
      assert.match(first.error!, SMTP_TIMEOUT_ERROR);
      await waitFor("the server's late answer to the first copy", () => rx.mails[0]?.answeredConnected !== undefined, replyDelay * 2);
      assert.equal(
        rx.mails[0].answeredConnected,
        false,
        `the first copy got its 250 on a connection still open after the row recorded "${first.error}": delivered, but logged as not sent`,
      );
    });

    // nodemailer's timeouts are per step and reset on every byte: a server that answers
    // EHLO one byte at a time, never finishing the line, is stopped only by the
    // attempt's own deadline (2 x MESSAGE_TIMEOUT, senders.ts), inside the worker's lease.
    test('a server that drips its answer is cut off by the attempt deadline, then retried', async () => {
      const drips = new Set<NodeJS.Timeout>();
      const server = net.createServer((socket) => {
        socket.on('error', () => {});
        socket.write('220 drip ESMTP\r\n');
        socket.once('data', () => {
          const timer = setInterval(() => socket.write('2'), TIMEOUT_MS / 4);
          drips.add(timer);
          socket.on('close', () => {
            clearInterval(timer);
            drips.delete(timer);
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(async () => {
        for (const timer of drips) clearInterval(timer);
        server.close();
      });
      const { email } = await queuedQuoteEmail();
      const started = Date.now();
      startWorker({ smtpUrl: `smtp://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
      await waitFor('the first attempt to be cut off', async () => (await messageRow(email.id)).attempts >= 1, TIMEOUT_MS * 10);
      const took = Date.now() - started;
      const row = await messageRow(email.id);
      assert.match(row.error!, new RegExp(`no answer within ${2 * TIMEOUT_MS} ms`));
      assert.ok(took >= 2 * TIMEOUT_MS - 50 && took < 3 * TIMEOUT_MS + 5_000, `cut off at the deadline, inside the lease (took ${took} ms)`);
      assert.equal(row.locked_by, null, 'given back, not held');
      assert.notEqual(row.status, 'sent');
    });

    test('a refused connection is retried, then failed after 5 attempts with the reason', async () => {
      const port = await closedPort();
      const { email } = await queuedQuoteEmail();
      startWorker({ smtpUrl: `smtp://127.0.0.1:${port}` });
      await waitFor('a retry', async () => (await messageRow(email.id)).attempts >= 1);
      await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(email.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, MAX_MESSAGE_ATTEMPTS);
      assert.match(row.error!, /ECONNREFUSED/);
      assert.equal(row.sent_at, null);
      assert.equal(row.next_attempt_at, null);
    });
  });

  describe('SMS', () => {
    test('only with provider, plan, type setting and the contact opt-in: otherwise no SMS row', async () => {
      const ws = await seedWorkspace(t.db);
      await setWorkspace(t.db, ws.workspace.id, { sms_provider: 'log', sms_plan: 'true', 'notifications.quote_to_customer.sms': 'true' });
      const noConsent = await newCustomer(ws, { phone: '+15550009999' });
      const q = await newQuote(ws, noConsent.id);
      await notify(ws, 'quote_to_customer', q.id);
      assert.deepEqual(
        (await messagesOf(ws.workspace.id, q.id)).map((m) => m.channel),
        ['email'],
      );
      // An invoice never goes by SMS, even to a consenting contact.
      const consenting = await newCustomer(ws, { phone: '+15550009998', smsOptIn: true });
      const inv = await newInvoice(ws, consenting.id);
      await notify(ws, 'invoice_to_customer', inv.id);
      assert.deepEqual(
        (await messagesOf(ws.workspace.id, inv.id)).filter((m) => m.module_type === 'invoice').map((m) => m.channel),
        ['email'],
      );
    });

    test('sms_provider=log: the SMS is not_sent, the error says log', async () => {
      const rx = await httpReceiver();
      const { sms } = await smsWorkspace('log');
      startWorker();
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'not_sent');
      assert.match(row.error!, /\blog\b/);
      assert.equal(row.attempts, 1);
      assert.equal(row.sent_at, null);
      assert.equal(rx.received.length, 0);
    });

    test('a provider URL gets POST JSON {to, body}; a 2xx makes the SMS sent', async () => {
      const rx = await httpReceiver();
      const { ws, quote, sms, phone } = await smsWorkspace(rx.url('/ok'));
      startWorker();
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const got = rx.received.filter((r) => r.path === '/ok');
      assert.equal(got.length, 1);
      const [r] = got;
      assert.match(String(r.headers['content-type']), /^application\/json/);
      const body = JSON.parse(r.raw) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['body', 'to']);
      assert.equal(body.to, phone);
      assert.equal(body.body, sms.body_text);
      assert.match(String(body.body), new RegExp(`^${ws.workspace.name}: we've emailed you quote #${quote.number} \\(\\$0\\.00\\)\\. http://fieldwork\\.test/hub/[A-Za-z0-9_-]{43}/quotes/${quote.id}$`)); // E7
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 1);
      assert.equal(row.error, null);
      assert.match(row.sent_at!, ISO);
    });

    test('a provider answering 500 is retried: failed after 5 attempts, the provider saw 5 requests', async () => {
      const rx = await httpReceiver();
      const { sms, phone } = await smsWorkspace(rx.url('/fail'));
      startWorker();
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, MAX_MESSAGE_ATTEMPTS);
      assert.match(row.error!, /500/);
      assert.equal(rx.received.filter((r) => r.path === '/fail' && (r.body as unknown as { to: string }).to === phone).length, 5);
    });

    test('a provider answering 400 fails the SMS after one attempt', async () => {
      const provider = await statusServer([400]);
      const { sms } = await smsWorkspace(provider.url);
      startWorker();
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 1);
      assert.match(row.error!, /400/);
      assert.equal(provider.requests.length, 1, 'no retry');
    });

    test('408 and 429 are temporary: retried, then sent on the 2xx', async () => {
      const provider = await statusServer([408, 429, 202]);
      const { sms, phone } = await smsWorkspace(provider.url);
      startWorker();
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent']);
      await sleep(QUIET_MS);
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 3);
      assert.equal(provider.requests.length, 3);
      assert.ok(provider.requests.every((r) => r.body.to === phone));
    });

    test('a provider that hangs is cut off at MESSAGE_TIMEOUT and retried, then failed after 5', async () => {
      const rx = await httpReceiver();
      const { sms, phone } = await smsWorkspace(rx.url('/hang'));
      startWorker();
      await waitFor('the first timeout', async () => (await messageRow(sms.id)).attempts >= 1);
      const first = await messageRow(sms.id);
      assert.match(first.error!, new RegExp(`timed out after ${TIMEOUT_MS} ms`));
      await waitFor('a retry', async () => rx.received.filter((r) => r.path === '/hang').length >= 2);
      await waitStatus(sms.id, ['sent', 'failed', 'not_sent'], 15_000);
      await sleep(QUIET_MS);
      const row = await messageRow(sms.id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, MAX_MESSAGE_ATTEMPTS);
      assert.match(row.error!, /timed out/);
      assert.equal(rx.received.filter((r) => r.path === '/hang' && (r.body as unknown as { to: string }).to === phone).length, 5);
    });
  });

  describe('status changes', () => {
    for (const kind of ['refused', 'hanging'] as const) {
      test(`with the SMTP server ${kind}, the quote enters awaiting_response once and invoice_sent is emitted once`, async () => {
        const server = kind === 'hanging' ? await silent() : null;
        const url = server ? server.url : `smtp://127.0.0.1:${await closedPort()}`;
        const ws = await seedWorkspace(t.db);
        const contact = await newCustomer(ws);
        const quote = await newQuote(ws, contact.id);
        const invoice = await newInvoice(ws, contact.id);
        assert.equal(quote.status, 'draft');
        assert.equal(invoice.status, 'draft');
        await notify(ws, 'quote_to_customer', quote.id);
        await notify(ws, 'invoice_to_customer', invoice.id);
        // Sent again: a copy, not another status change.
        await notify(ws, 'quote_to_customer', quote.id);
        await notify(ws, 'invoice_to_customer', invoice.id);
        const emails = (await messagesOf(ws.workspace.id)).filter((m) => m.channel === 'email');
        assert.equal(emails.length, 4);
        startWorker({ smtpUrl: url });
        if (server) {
          // Every email is (or has been) in flight against the silent server; whatever
          // the attempts' fate (see the MESSAGE_TIMEOUT test), nothing moves again.
          await waitFor('an attempt at every email', () => server.connectedAt.length >= emails.length);
          await sleep(2 * TIMEOUT_MS + RETRY_MS);
        } else {
          for (const m of emails) await waitStatus(m.id, ['sent', 'failed', 'not_sent'], 15_000);
          await sleep(QUIET_MS);
          for (const m of await messagesOf(ws.workspace.id)) {
            assert.equal(m.status, 'failed');
            assert.equal(m.attempts, MAX_MESSAGE_ATTEMPTS);
            assert.match(m.error!, /ECONNREFUSED/);
          }
        }

        const changes = await t.db
          .selectFrom('quote_status_changes')
          .select(['status'])
          .where('workspace_id', '=', ws.workspace.id)
          .where('quote_id', '=', quote.id)
          .execute();
        assert.deepEqual(
          changes.map((c) => c.status),
          ['awaiting_response'],
          'one status change row',
        );
        const q = (await client(t.app, ws.token).get(`/api/v1/quotes/${quote.id}`)).body.data;
        assert.equal(q.status, 'awaiting_response');
        const awaiting = await t.db
          .selectFrom('internal_notifications')
          .select('id')
          .where('workspace_id', '=', ws.workspace.id)
          .where('name', '=', 'quotes_awaiting_response')
          .where('module_id', '=', quote.id)
          .execute();
        assert.equal(awaiting.length, 1, 'quotes_awaiting_response once (the owner is the only admin)');

        const sent = (await outboxEvents(t.db, ws.workspace.id)).filter((e) => e.event === 'invoice_sent');
        assert.equal(sent.length, 1, 'one invoice_sent outbox row');
        assert.equal(sent[0].data.id, invoice.id);
        const inv = (await client(t.app, ws.token).get(`/api/v1/invoices/${invoice.id}`)).body.data;
        assert.equal(inv.status, 'sent');
      });
    }
  });

  test('stop() while an email attempt hangs: resolves after the attempt times out; the message is queued for a retry, not held', async () => {
    const server = await silent();
    const { email } = await queuedQuoteEmail();
    const w = startWorker({ smtpUrl: server.url });
    await waitFor('the attempt in flight', async () => server.connectedAt.length >= 1 && (await messageRow(email.id)).locked_by === w.id);
    const held = await messageRow(email.id);
    assert.equal(held.status, 'queued');
    assert.equal(held.attempts, 0);
    const stopping = Date.now();
    // Bounded: if stop() hangs on, the test fails here and afterEach drops the server's sockets.
    const stopped = await Promise.race([w.stop().then(() => Date.now()), sleep(3_000).then(() => null)]);
    assert.ok(
      stopped !== null,
      `stop() still waiting ${Date.now() - stopping} ms later: the attempt in flight was not cut off at MESSAGE_TIMEOUT (${TIMEOUT_MS} ms)`,
    );
    worker = null;
    assert.ok(stopped - server.connectedAt[0] >= TIMEOUT_MS - 20, `stop() waited for the attempt to time out (${stopped - server.connectedAt[0]} ms)`);
    const row = await messageRow(email.id);
    assert.equal(row.locked_by, null, 'no lock left behind');
    assert.equal(row.locked_until, null);
    assert.equal(row.status, 'queued', 'given back for a retry, not lost');
    assert.equal(row.attempts, 1);
    assert.match(row.error!, SMTP_TIMEOUT_ERROR);
    assert.ok(row.next_attempt_at);
    await sleep(QUIET_MS);
    assert.equal(server.connectedAt.length, 1, 'a stopped worker makes no further attempt');

    // The next worker picks it up.
    const rx = await smtp();
    startWorker({ smtpUrl: rx.url });
    await waitStatus(email.id, ['sent', 'failed', 'not_sent']);
    const done = await messageRow(email.id);
    assert.equal(done.status, 'sent');
    assert.equal(done.attempts, 2);
    assert.equal(rx.mails.length, 1);
  });

  test('fieldwork messages: JSON newest first with its fields, --channel and --status filter, unknown workspace fails, readable table', async () => {
    const ws = await seedWorkspace(t.db);
    await setWorkspace(t.db, ws.workspace.id, { sms_provider: 'log', sms_plan: 'true', 'notifications.quote_to_customer.sms': 'true' });
    const contact = await newCustomer(ws, { phone: '+15550001234', smsOptIn: true });
    const q1 = await newQuote(ws, contact.id);
    const q2 = await newQuote(ws, contact.id);
    // q1: email not sent (no SMTP_URL), SMS not sent (log).
    await notify(ws, 'quote_to_customer', q1.id);
    startWorker();
    for (const m of await messagesOf(ws.workspace.id)) await waitStatus(m.id, ['not_sent']);
    await worker!.stop();
    worker = null;
    // q2: email sent, SMS not sent (log).
    const rx = await smtp();
    await notify(ws, 'quote_to_customer', q2.id);
    startWorker({ smtpUrl: rx.url });
    for (const m of await messagesOf(ws.workspace.id)) await waitStatus(m.id, ['sent', 'not_sent']);
    await worker!.stop();
    worker = null;
    const rows = await messagesOf(ws.workspace.id);
    assert.equal(rows.length, 4);
    const url = t.url;
    const base = ['messages', '--workspace', String(ws.workspace.id)];

    const jsonOf = (r: CliRun) => {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.equal(r.stdout.trim().split('\n').length, 1, 'exactly one line of JSON');
      const parsed = JSON.parse(r.stdout) as { messages: Record<string, unknown>[] };
      assert.deepEqual(Object.keys(parsed), ['messages']);
      return parsed.messages;
    };
    // Each run starts a process (~seconds): they read only, so they run side by side.
    const [allRun, smsRun, notSentRun, sentEmailRun, missing, readable] = await Promise.all([
      spawnCli(url, [...base, '--json']),
      spawnCli(url, [...base, '--channel', 'sms', '--json']),
      spawnCli(url, [...base, '--status', 'not_sent', '--json']),
      spawnCli(url, [...base, '--channel', 'email', '--status', 'sent', '--json']),
      spawnCli(url, ['messages', '--workspace', '999999', '--json']),
      spawnCli(url, base),
    ]);

    const all = jsonOf(allRun);
    assert.deepEqual(
      all.map((m) => m.id),
      rows.map((r) => r.id).reverse(),
      'newest first',
    );
    for (const m of all) {
      assert.deepEqual(Object.keys(m).sort(), MESSAGE_FIELDS);
      const row = rows.find((r) => r.id === m.id)!;
      assert.equal(m.channel, row.channel);
      assert.equal(m.type, 'quote_to_customer');
      assert.equal(m.to, row.channel === 'email' ? contact.email : '+15550001234');
      assert.equal(m.subject, row.subject);
      assert.equal(m.status, row.status);
      assert.equal(m.created_at, row.created_at);
      assert.equal(m.sent_at, row.sent_at);
      assert.equal(m.error, row.error);
      assert.equal(m.attempts, row.attempts); // 1, or more when a loaded machine made the SMTP attempt time out once
      assert.ok(Number(m.attempts) >= 1);
      assert.equal(m.module_type, 'quote');
      assert.equal(m.contact_id, contact.id);
    }
    for (let i = 1; i < all.length; i++) assert.ok(String(all[i - 1].created_at) >= String(all[i].created_at), 'created_at never increases down the list');
    assert.deepEqual(
      all.map((m) => [m.module_id, m.channel, m.status]),
      [
        [q2.id, 'sms', 'not_sent'],
        [q2.id, 'email', 'sent'],
        [q1.id, 'sms', 'not_sent'],
        [q1.id, 'email', 'not_sent'],
      ],
    );
    assert.equal(all[1].subject, `Quote #${q2.number} from ${ws.workspace.name}`);
    assert.equal(all[0].subject, null, 'an SMS has no subject');
    assert.match(String(all[1].sent_at), ISO);
    assert.equal(all[1].error, null);

    const sms = jsonOf(smsRun);
    assert.deepEqual(
      sms.map((m) => m.id),
      all.filter((m) => m.channel === 'sms').map((m) => m.id),
    );
    assert.ok(sms.every((m) => String(m.error).includes('log')));

    const notSent = jsonOf(notSentRun);
    assert.deepEqual(
      notSent.map((m) => m.id),
      all.filter((m) => m.status === 'not_sent').map((m) => m.id),
    );
    assert.equal(notSent.length, 3);

    assert.deepEqual(
      jsonOf(sentEmailRun).map((m) => [m.module_id, m.channel, m.status]),
      [[q2.id, 'email', 'sent']],
    );

    assert.notEqual(missing.code, 0);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /workspace 999999 not found/);
    assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');

    assert.equal(readable.code, 0, readable.stderr);
    const lines = readable.stdout.trimEnd().split('\n');
    assert.match(lines[0], /\bID\b.*\bCHANNEL\b.*\bSTATUS\b.*\bATTEMPTS\b.*WHY NOT/);
    assert.ok(
      lines.some((l) => /not_sent/.test(l) && /SMTP_URL is not set/.test(l)),
      readable.stdout,
    );
    assert.ok(
      lines.some((l) => /not_sent/.test(l) && /sms_provider is log/.test(l)),
      readable.stdout,
    );
    assert.ok(
      lines.some((l) => l.includes(contact.email) && /\bsent\b/.test(l)),
      readable.stdout,
    );
  });
});
