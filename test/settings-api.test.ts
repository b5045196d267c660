import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, type Client, client, keyFor, ownerSessionToken, seedUser, seedWorkspace, type TestApp } from './helpers.ts';
import { type Receiver, startReceiver, waitFor } from './webhook-receiver.ts';

// Issue 22, the settings API: keys, the webhook delivery log, the message log,
// PUT /workspace, custom field writes, notification settings and their preview.
// Every operation with its refusals (a key without the scope, bad input that
// changes nothing); another workspace's ids are in test/isolation.test.ts.
// `ownerSessionToken` stands in for an owner's session (see test/helpers.ts).

const REFUSED_KEY = { success: false, error: 'Insufficient permissions. Required scope: keys:manage' };

describe('settings API', () => {
  let t: TestApp;
  let rx: Receiver;
  let worker: Worker | null = null;
  before(async () => {
    t = await buildTestApp({ WEBHOOK_RETRY_SCHEDULE: '50ms,50ms', WEBHOOK_TIMEOUT: '500ms' });
    rx = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });
  after(async () => {
    await rx.close();
    await t.close();
  });

  const setup = async () => {
    const ws = await seedWorkspace(t.db);
    const owner = client(t.app, await ownerSessionToken(t.db, ws.workspace.id));
    return { ws, owner, general: client(t.app, ws.token) };
  };
  const count = async (table: 'api_keys' | 'custom_fields' | 'messages', workspaceId: number) =>
    (await t.db.selectFrom(table).select('id').where('workspace_id', '=', workspaceId).execute()).length;

  describe('API keys', () => {
    test('create shows the token once; it works as a Bearer key until DELETE revokes it', async () => {
      const { ws, owner } = await setup();
      const created = await owner.post('/api/v1/keys', { type: 'rest', name: 'Zapier', scopes: ['contacts:read'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const key = created.body.data;
      assert.match(key.token, /^wk_[A-Za-z0-9]{8}\.[0-9a-f]{64}$/);
      assert.deepEqual(key.scopes, ['contacts:read']);
      assert.equal(key.name, 'Zapier');
      assert.equal(key.user_id, ws.owner.user_id, "the key's user is the person creating it");
      const made = client(t.app, key.token);
      assert.equal((await made.get('/api/v1/contacts')).status, 200);
      assert.equal((await made.post('/api/v1/contacts', { first_name: 'No' })).status, 403);

      const list = await owner.get('/api/v1/keys?revoked=false&sort_by=id&sort_direction=asc');
      assert.equal(list.status, 200);
      const listed = list.body.data.find((k: { id: number }) => k.id === key.id);
      assert.deepEqual(Object.keys(listed).sort(), ['created_at', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes', 'type', 'updated_at', 'user_id']);
      assert.ok(!JSON.stringify(list.body).includes(key.token.split('.')[1]), 'never the token');

      const revoked = await owner.delete(`/api/v1/keys/${key.id}`);
      assert.deepEqual(revoked.body, { success: true, data: { deleted: true } });
      // At once in this process (the cache is dropped), not a second later.
      assert.deepEqual((await made.get('/api/v1/contacts')).body, { success: false, error: 'Invalid API key' });
      const after = (await owner.get('/api/v1/keys?revoked=true')).body.data;
      assert.deepEqual(
        after.map((k: { id: number }) => k.id),
        [key.id],
      );
      assert.ok(after[0].revoked_at);
      assert.equal((await owner.delete('/api/v1/keys/2000000000')).status, 404);
    });

    test('a general key by default; an Idempotency-Key replay answers the key without its token', async () => {
      const { owner } = await setup();
      const headers = { 'idempotency-key': 'new-key-1' };
      const first = await owner.post('/api/v1/keys', { type: 'general' }, headers);
      assert.equal(first.status, 201);
      assert.deepEqual(first.body.data.scopes, ['read', 'write']);
      const replay = await owner.post('/api/v1/keys', { type: 'general' }, headers);
      assert.equal(replay.status, 201);
      assert.equal(replay.body.data.id, first.body.data.id);
      assert.equal(replay.body.data.token, null, 'the token is shown once; only its hash is stored');
      const stored = await t.db.selectFrom('idempotency_keys').selectAll().execute();
      assert.ok(!JSON.stringify(stored).includes(first.body.data.token.split('.')[1]));
    });

    test('bad input is 400 and creates nothing: a rest key without scopes, a session-only or unknown scope, a stranger as user', async () => {
      const { ws, owner } = await setup();
      const other = await seedWorkspace(t.db);
      const before = await count('api_keys', ws.workspace.id);
      const cases: [unknown, string][] = [
        [{ type: 'rest' }, 'scopes'],
        [{ type: 'rest', scopes: ['keys:manage'] }, 'scopes'],
        [{ type: 'general', scopes: ['team:manage'] }, 'scopes'],
        [{ type: 'general', scopes: ['everything'] }, 'scopes'],
        [{ type: 'general', user_id: other.owner.user_id }, 'user_id'],
        [{ type: 'secret' }, 'type'],
      ];
      for (const [body, field] of cases) {
        const res = await owner.post('/api/v1/keys', body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.success, false);
        assert.deepEqual(res.body.details[0].path, [field], JSON.stringify(res.body));
      }
      assert.equal(await count('api_keys', ws.workspace.id), before);
    });

    test('a key, even a general one, gets 403 on every key operation, and changes nothing', async () => {
      const { ws, general, owner } = await setup();
      const victim = (await owner.post('/api/v1/keys', { type: 'general' })).body.data;
      const before = await count('api_keys', ws.workspace.id);
      assert.deepEqual((await general.get('/api/v1/keys')).body, REFUSED_KEY);
      assert.deepEqual((await general.post('/api/v1/keys', { type: 'general' })).body, REFUSED_KEY);
      assert.deepEqual((await general.delete(`/api/v1/keys/${victim.id}`)).body, REFUSED_KEY);
      assert.equal((await general.get('/api/v1/keys')).status, 403);
      assert.equal(await count('api_keys', ws.workspace.id), before);
      assert.equal((await client(t.app, victim.token).get('/api/v1/contacts')).status, 200, 'not revoked');
    });
  });

  describe('webhook deliveries', () => {
    test('the log lists deliveries (filters), a delivery shows its attempts, Redeliver sends it again with the same webhook_id', async () => {
      const { ws, general } = await setup();
      const sub = (await general.post('/api/webhooks/subscribe', { trigger_event: 'new_contact', webhook_url: rx.url('/ok?s=settings') })).body.subscription;
      worker = new Worker({ db: t.db, dialect: t.database.dialect, config: t.config, pollMs: 20 });
      worker.start();
      const before = rx.received.length;
      await general.post('/api/v1/contacts', { first_name: 'Hook', last_name: 'Log' });
      await waitFor('the delivery', () => rx.received.length > before);
      await waitFor('delivered', async () => (await general.get('/api/v1/webhook-deliveries?status=delivered')).body.data.length === 1);

      const list = await general.get(`/api/v1/webhook-deliveries?subscription_id=${sub.id}`);
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      const d = list.body.data[0];
      assert.equal(d.event, 'new_contact');
      assert.equal(d.status, 'delivered');
      assert.equal(d.last_status_code, 200);
      assert.deepEqual((await general.get('/api/v1/webhook-deliveries?status=failed')).body.data, []);
      assert.deepEqual((await general.get(`/api/v1/webhook-deliveries?subscription_id=${sub.id + 1000}`)).body.data, []);

      const one = await general.get(`/api/v1/webhook-deliveries/${d.id}`);
      assert.equal(one.body.data.attempt_log.length, 1);
      assert.equal(one.body.data.attempt_log[0].status_code, 200);

      const again = await general.post(`/api/v1/webhook-deliveries/${d.id}/redeliver`);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(again.body.data.id, d.id);
      await waitFor('the second attempt', async () => (await general.get(`/api/v1/webhook-deliveries/${d.id}`)).body.data.attempt_log.length === 2);
      const copies = rx.received.filter((r) => r.path === '/ok' && r.body.workspace_id === ws.workspace.id);
      assert.ok(copies.length, JSON.stringify(rx.received.map((r) => r.path)));
      assert.equal(copies.length, 2);
      assert.equal(copies[0].body.meta.webhook_id, copies[1].body.meta.webhook_id);
      assert.equal(ws.workspace.id, copies[1].body.workspace_id);
    });

    test('refusals: a key without webhooks scopes gets 403, bad filters 400, unknown ids 404', async () => {
      const { ws, general } = await setup();
      const contactsOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read', 'webhooks:read']));
      assert.equal((await contactsOnly.get('/api/v1/webhook-deliveries')).status, 200);
      assert.deepEqual((await contactsOnly.post('/api/v1/webhook-deliveries/1/redeliver')).body, {
        success: false,
        error: 'Insufficient permissions. Required scope: webhooks:write',
      });
      const none = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read']));
      assert.equal((await none.get('/api/v1/webhook-deliveries')).status, 403);
      assert.equal((await general.get('/api/v1/webhook-deliveries?status=lost')).status, 400);
      assert.deepEqual((await general.get('/api/v1/webhook-deliveries/2000000000')).body, { success: false, error: 'Delivery not found' });
      assert.deepEqual((await general.post('/api/v1/webhook-deliveries/2000000000/redeliver')).body, { success: false, error: 'Delivery not found' });
    });
  });

  describe('messages and notification settings', () => {
    const sendQuote = async (api: Client) => {
      const contact = (await api.post('/api/v1/contacts', { first_name: 'Mia', last_name: 'Customer', email: 'mia@example.test' })).body.data;
      const quote = (await api.post('/api/v1/quotes', { contact_id: contact.id, name: 'Gutters', line_items: [{ name: 'Clean', unitPrice: 90, quantity: 1 }] })).body.data;
      const sent = await api.post('/api/v1/notifications', { type: 'quote_to_customer', module_id: quote.id });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      return quote;
    };

    test('GET /messages lists customer messages with their attempts, filtered by channel and status', async () => {
      const { ws, general } = await setup();
      const quote = await sendQuote(general);
      const list = await general.get('/api/v1/messages?channel=email');
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      const m = list.body.data[0];
      assert.equal(m.to, 'mia@example.test');
      assert.equal(m.status, 'queued');
      assert.equal(m.attempts, 0);
      assert.equal(m.module_id, quote.id);
      assert.match(m.subject, /Quote #/);
      assert.deepEqual((await general.get('/api/v1/messages?channel=sms')).body.data, []);
      assert.deepEqual((await general.get('/api/v1/messages?status=sent')).body.data, []);
      assert.equal((await general.get('/api/v1/messages?status=lost')).status, 400);
      const noScope = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read']));
      assert.deepEqual((await noScope.get('/api/v1/messages')).body, { success: false, error: 'Insufficient permissions. Required scope: notifications:read' });
    });

    test('a template edit changes the next customer email; switches turn a type off; bad templates are 400 and change nothing', async () => {
      const { ws, general } = await setup();
      const all = await general.get('/api/v1/notification-settings');
      assert.deepEqual(
        all.body.data.map((s: { type: string }) => s.type),
        ['quote_to_customer', 'invoice_to_customer', 'appointment_reminder', 'hub_link_to_customer', 'quote_follow_up', 'invoice_reminder'],
      );
      assert.equal(all.body.data[0].email, true);
      assert.equal(all.body.data[0].templates.subject, null);
      assert.match(all.body.data[0].defaults.subject, /\{\{number\}\}/);

      const put = await general.put('/api/v1/notification-settings', {
        type: 'quote_to_customer',
        templates: { subject: 'Your quote {{number}}, {{contact_first_name}}', text: 'Hi {{contact_first_name}}, see {{link}}' },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.data.templates.subject, 'Your quote {{number}}, {{contact_first_name}}');
      await sendQuote(general);
      const [latest] = (await general.get('/api/v1/messages?per_page=1')).body.data;
      assert.match(latest.subject, /^Your quote \d+, Mia$/);
      const body = await t.db.selectFrom('messages').select('body_text').where('id', '=', latest.id).executeTakeFirstOrThrow();
      assert.match(body.body_text, /^Hi Mia, see http:\/\/fieldwork\.test\/hub\//);

      const bad = await general.put('/api/v1/notification-settings', { type: 'quote_to_customer', email: false, templates: { subject: 'Hi {{nope}}' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details[0].path, ['templates', 'subject']);
      const now = (await general.get('/api/v1/notification-settings')).body.data[0];
      assert.equal(now.email, true, 'nothing changed');
      assert.equal(now.templates.subject, 'Your quote {{number}}, {{contact_first_name}}');

      // Null goes back to the default; email off keeps the next email in the log, not sent.
      const reset = await general.put('/api/v1/notification-settings', { type: 'quote_to_customer', email: false, templates: { subject: null, text: null } });
      assert.equal(reset.body.data.templates.subject, null);
      assert.equal(reset.body.data.email, false);
      await sendQuote(general);
      const [off] = (await general.get('/api/v1/messages?per_page=1')).body.data;
      assert.equal(off.status, 'not_sent');
      assert.match(off.subject, /^Quote #/);

      const readOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['workspace:read']));
      assert.equal((await readOnly.get('/api/v1/notification-settings')).status, 200);
      assert.deepEqual((await readOnly.put('/api/v1/notification-settings', { type: 'quote_to_customer', email: true })).body, {
        success: false,
        error: 'Insufficient permissions. Required scope: workspace:write',
      });
    });

    test('preview renders saved or draft templates against a sample document with the business details, and stores nothing', async () => {
      const { ws, general } = await setup();
      await general.put('/api/v1/workspace', { phone: '+1 555 0100', address: '1 Main St\nSpringfield' });
      const saved = await general.post('/api/v1/notification-settings/preview', { type: 'invoice_to_customer' });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.equal(saved.body.data.subject, `Invoice #1001 from ${ws.workspace.name}`);
      assert.match(saved.body.data.text, /Hello Sam,/);
      assert.match(saved.body.data.text, /\+1 555 0100/);
      assert.match(saved.body.data.html, /1 Main St/);
      const draft = await general.post('/api/v1/notification-settings/preview', { type: 'invoice_to_customer', templates: { subject: '<b>{{total}}</b> due {{due_date}}', html: '<p>{{contact_name}}</p>' } });
      assert.equal(draft.body.data.subject, '<b>$443.83</b> due April 1, 2026');
      assert.equal(draft.body.data.html, '<p>Sam Sample</p>');
      const bad = await general.post('/api/v1/notification-settings/preview', { type: 'invoice_to_customer', templates: { text: '{{expire_on}}' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details[0].path, ['templates', 'text']);
      assert.equal((await general.get('/api/v1/notification-settings')).body.data[1].templates.subject, null, 'a preview saves nothing');
      assert.equal(await count('messages', ws.workspace.id), 0);
    });
  });

  describe('PUT /workspace', () => {
    test("changes the fields of `workspace set` and the business's details; GET shows them", async () => {
      const { general } = await setup();
      const res = await general.put('/api/v1/workspace', {
        name: 'Acme Plumbing',
        country: 'fr',
        currency: 'EUR',
        timezone: 'Europe/Paris',
        industry: 'Home Services',
        about: 'Pipes.',
        reply_to: 'office@acme.test',
        week_start: 'sunday',
        address: '1 Rue de la Paix\n75002 Paris',
        phone: '+33 1 23 45 67 89',
        email: 'hello@acme.test',
        website: 'https://acme.test',
        tax_number: 'FR 12 345 678 901',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const expected = {
        name: 'Acme Plumbing',
        country: 'FR',
        currency: 'eur',
        timezone: 'Europe/Paris',
        industry: 'Home Services',
        industry_key: 'home_services',
        about: 'Pipes.',
        reply_to: 'office@acme.test',
        week_start: 'sunday',
        address: '1 Rue de la Paix\n75002 Paris',
        phone: '+33 1 23 45 67 89',
        email: 'hello@acme.test',
        website: 'https://acme.test',
        tax_number: 'FR 12 345 678 901',
      };
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(res.body.data[k], v, k);
      const got = (await general.get('/api/v1/workspace')).body.data;
      assert.deepEqual(got, res.body.data);
      const cleared = await general.put('/api/v1/workspace', { reply_to: null, about: '', phone: null });
      assert.equal(cleared.body.data.reply_to, null);
      assert.equal(cleared.body.data.about, null);
      assert.equal(cleared.body.data.phone, null);
      assert.equal(cleared.body.data.name, 'Acme Plumbing');
    });

    test('bad values are 400 naming each field, and change nothing; a key without workspace:write gets 403', async () => {
      const { ws, general } = await setup();
      const before = (await general.get('/api/v1/workspace')).body.data;
      const bad = await general.put('/api/v1/workspace', { timezone: 'Mars/Olympus', currency: 'dollars', country: 'USA', reply_to: 'not an email', website: 'ftp://x', email: 'x@' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.details.map((d: { path: string[] }) => d.path[0]).sort(), ['country', 'currency']); // maxLength first (schema)
      const bad2 = await general.put('/api/v1/workspace', { timezone: 'Mars/Olympus', currency: 'xy1', reply_to: 'not an email', website: 'ftp://x', email: 'x@', name: ' ' });
      assert.equal(bad2.status, 400);
      assert.deepEqual(bad2.body.details.map((d: { path: string[] }) => d.path[0]).sort(), ['currency', 'email', 'name', 'reply_to', 'timezone', 'website']);
      assert.equal((await general.put('/api/v1/workspace', { week_start: 'friday' })).status, 400);
      assert.equal((await general.put('/api/v1/workspace', { name: '' })).status, 400);
      assert.deepEqual((await general.get('/api/v1/workspace')).body.data, before);
      const readOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['workspace:read']));
      assert.deepEqual((await readOnly.put('/api/v1/workspace', { name: 'Mine' })).body, { success: false, error: 'Insufficient permissions. Required scope: workspace:write' });
      assert.deepEqual((await general.get('/api/v1/workspace')).body.data, before);
    });
  });

  describe('custom fields', () => {
    test('create, edit label, options and required (binding new records), delete; refusals', async () => {
      const { ws, general } = await setup();
      const made = await general.post('/api/v1/custom-fields', { module_type: 'contact', key: 'tier', label: 'Tier', type: 'select', options: ['gold', 'silver'] });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const field = made.body.data;
      assert.deepEqual([field.key, field.label, field.options, field.required], ['tier', 'Tier', ['gold', 'silver'], false]);
      const a = await general.post('/api/v1/contacts', { first_name: 'A', last_name: 'X', custom_fields: { tier: 'bronze' } });
      assert.deepEqual([a.status, a.body.details[0].path], [422, ['custom_fields', 'tier']]);

      const edited = await general.put(`/api/v1/custom-fields/${field.id}`, { label: 'Customer tier', options: ['gold', 'silver', 'bronze'], required: true });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.deepEqual([edited.body.data.label, edited.body.data.options, edited.body.data.required], ['Customer tier', ['gold', 'silver', 'bronze'], true]);
      assert.ok(edited.body.data.updated_at >= field.updated_at);
      const b = await general.post('/api/v1/contacts', { first_name: 'B', last_name: 'X', custom_fields: { tier: 'bronze' } });
      assert.equal(b.status, 201, JSON.stringify(b.body));
      const missing = await general.post('/api/v1/contacts', { first_name: 'C', last_name: 'X' });
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body.details[0].path, ['custom_fields', 'tier']);

      const before = await count('custom_fields', ws.workspace.id);
      const refusals: [string, string, unknown, number][] = [
        ['post', '/api/v1/custom-fields', { module_type: 'contact', key: 'tier', label: 'Again', type: 'text' }, 409],
        ['post', '/api/v1/custom-fields', { module_type: 'contact', key: 'bad key', label: 'X', type: 'text' }, 400],
        ['post', '/api/v1/custom-fields', { module_type: 'contact', key: 'x', label: 'X', type: 'select' }, 400],
        ['post', '/api/v1/custom-fields', { module_type: 'contact', key: 'x', label: ' ', type: 'text' }, 400],
        ['post', '/api/v1/custom-fields', { module_type: 'widget', key: 'x', label: 'X', type: 'text' }, 400],
        ['post', '/api/v1/custom-fields', { module_type: 'job', key: 'x', label: 'X', type: 'text', options: ['a'] }, 400],
      ];
      for (const [, url, body, status] of refusals) assert.equal((await general.post(url, body)).status, status, JSON.stringify(body));
      const text = (await general.post('/api/v1/custom-fields', { module_type: 'job', key: 'gate', label: 'Gate code', type: 'text' })).body.data;
      assert.equal((await general.put(`/api/v1/custom-fields/${text.id}`, { options: ['a'] })).status, 400);
      assert.equal((await general.put(`/api/v1/custom-fields/${text.id}`, { label: '' })).status, 400);
      assert.equal((await general.put('/api/v1/custom-fields/2000000000', { label: 'X' })).status, 404);
      assert.equal(await count('custom_fields', ws.workspace.id), before + 1);

      const plugin = client(t.app, await keyFor(t.db, ws.workspace.id, 'plugin')); // custom_fields:read
      assert.equal((await plugin.get('/api/v1/custom-fields')).status, 200);
      assert.deepEqual((await plugin.delete(`/api/v1/custom-fields/${field.id}`)).body, {
        success: false,
        error: 'Insufficient permissions. Required scope: custom_fields:write',
      });

      assert.deepEqual((await general.delete(`/api/v1/custom-fields/${field.id}`)).body, { success: true, data: { deleted: true } });
      const d = await general.post('/api/v1/contacts', { first_name: 'D', last_name: 'X' });
      assert.equal(d.status, 201, JSON.stringify(d.body));
      assert.equal((await general.delete(`/api/v1/custom-fields/${field.id}`)).status, 404);
      const feed = await general.get('/api/v1/deletions?resource=custom_fields');
      assert.deepEqual(
        feed.body.data.map((e: { resource: string; id: number }) => [e.resource, e.id]),
        [["custom_fields", field.id]],
      );
    });
  });

  test('members exist only through the CLI for now: a member-user key keeps its own scopes', async () => {
    const { ws } = await setup();
    const member = await seedUser(t.db, ws.workspace.id, 'member');
    const memberKey = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: member.user_id }));
    assert.equal((await memberKey.get('/api/v1/keys')).status, 403);
  });
});
