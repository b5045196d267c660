// A88: "Send hub link" emails it. `POST /notifications` with `hub_link_to_customer`
// and a contact's id queues an email through the outbox (the message log, the
// workspace's switches and templates, as every customer email) carrying a fresh
// E7 link to the hub's home; it reaches the SMTP server. A contact without an
// email is 400, an unknown or another workspace's contact 404, nothing queued.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, client, seedWorkspace, type TestApp } from './helpers.ts';
import { startSmtpReceiver } from './smtp-receiver.ts';
import { waitFor } from './webhook-receiver.ts';

describe('hub_link_to_customer (A88)', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const messageCount = async (workspaceId: number) =>
    Number((await t.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow()).n);

  test('emails the contact a working link to the hub home, through the message log', async () => {
    const ws = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const contact = (await api.post('/api/v1/contacts', { first_name: 'Hana', last_name: 'Hub', email: 'hana@example.test' })).body.data;
    const rx = await startSmtpReceiver();
    const worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, smtpUrl: rx.url }, pollMs: 20 });
    worker.start();
    try {
      const res = await api.post('/api/v1/notifications', { type: 'hub_link_to_customer', module_id: contact.id });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(res.body.data, { queued: true, type: 'hub_link_to_customer', module: 'contacts', module_id: contact.id, recipient: { contact_id: contact.id, email: 'hana@example.test' } });
      await waitFor('the hub link email', () => rx.mails.some((m) => m.to.includes('hana@example.test')));
      const mail = rx.mails.find((m) => m.to.includes('hana@example.test'));
      assert.ok(mail);
      const raw = mail.raw.replace(/=\r?\n/g, '');
      const link = /http:\/\/fieldwork\.test\/hub\/[A-Za-z0-9_-]+/.exec(raw)?.[0];
      assert.ok(link, 'the email carries a hub link');
      const hub = await t.app.inject({ method: 'GET', url: new URL(link).pathname });
      assert.equal(hub.statusCode, 200, 'the emailed link opens the hub');
      const logged = await t.db.selectFrom('messages').selectAll().where('workspace_id', '=', ws.workspace.id).execute();
      assert.deepEqual(
        logged.map((m) => [m.type, m.channel, m.module_type, m.module_id, m.contact_id, m.recipient]),
        [['hub_link_to_customer', 'email', 'contact', contact.id, contact.id, 'hana@example.test']],
      );
      const settings = await api.get('/api/v1/notification-settings');
      assert.ok(settings.body.data.some((s: { type: string }) => s.type === 'hub_link_to_customer'), 'its switches and templates are settings like the others');
    } finally {
      await worker.stop();
      await rx.close();
    }
  });

  test('no email is 400, an unknown or foreign contact 404; nothing is queued', async () => {
    const ws = await seedWorkspace(t.db);
    const other = await seedWorkspace(t.db);
    const api = client(t.app, ws.token);
    const mute = (await api.post('/api/v1/contacts', { first_name: 'Mo', last_name: 'Mute' })).body.data;
    const foreign = (await client(t.app, other.token).post('/api/v1/contacts', { first_name: 'Fo', last_name: 'Reign', email: 'fo@example.test' })).body.data;
    const noEmail = await api.post('/api/v1/notifications', { type: 'hub_link_to_customer', module_id: mute.id });
    assert.equal(noEmail.status, 400);
    assert.deepEqual(noEmail.body, { success: false, error: 'Contact has no email address' });
    for (const id of [foreign.id, 999999]) {
      const res = await api.post('/api/v1/notifications', { type: 'hub_link_to_customer', module_id: id });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Contact not found' });
    }
    assert.equal(await messageCount(ws.workspace.id), 0);
    assert.equal(await t.db.selectFrom('hub_links').select('id').where('workspace_id', '=', ws.workspace.id).execute().then((r) => r.length), 0, 'no link minted');
  });
});
