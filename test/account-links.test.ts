import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { hashToken } from '../src/kernel/tokens.ts';
import { emailSetupLink, mintSetupLink } from '../src/modules/accounts/accounts.service.ts';
import { Worker } from '../src/outbox/worker.ts';
import { connectRedis } from '../src/redis.ts';
import { buildTestApp, seedUser, seedWorkspace, spawnCli, type TestApp } from './helpers.ts';
import { type Browser, call, cookieOf, ORIGIN, PASSWORD, setUp, signIn } from './session-client.ts';
import { startSmtpReceiver } from './smtp-receiver.ts';

// APP.md A1: setup links (CLI), joining a second workspace, switching, forgot and
// reset password by real email, password changes, removed members, brute force.

const tokenOf = (url: string) => url.split('/').pop()!;

describe('setup links', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('a new owner signs in in three steps: workspace create, open setup_url, sign in', async () => {
    const created = await spawnCli(t.url, ['workspace', 'create', '--name', 'Fresh Co', '--owner-email', 'Founder@Fresh.test', '--json'], { PUBLIC_URL: ORIGIN });
    assert.equal(created.code, 0, created.stderr);
    const { workspace, owner } = JSON.parse(created.stdout);
    assert.match(owner.setup_url, /^http:\/\/fieldwork\.test\/app\/setup\/[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(owner.setup_url);
    const stored = await t.db.selectFrom('auth_links').select(['token_hash', 'expires_at', 'kind']).where('workspace_id', '=', workspace.id).execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0].token_hash, hashToken(token), 'stored only as a hash');
    assert.equal(stored[0].kind, 'setup');
    const days = (Date.parse(stored[0].expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 6.99 && days <= 7, `valid 7 days (${days})`);

    const info = await call(t.app, 'POST', '/api/auth/setup-info', { body: { token } });
    assert.deepEqual(info.body.data, { email: 'founder@fresh.test', first_name: null, last_name: null, workspace: { id: workspace.id, name: 'Fresh Co' }, has_password: false });

    const res = await call(t.app, 'POST', '/api/auth/setup', { body: { token, first_name: 'Fran', last_name: 'Founder', password: PASSWORD } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(cookieOf(res), 'setting up signs in');
    assert.equal(res.body.data.user.first_name, 'Fran');
    assert.equal(res.body.data.workspace.id, workspace.id);
    assert.equal(res.body.data.user.role, 'owner');
    const again = await call(t.app, 'POST', '/api/auth/setup', { body: { token, first_name: 'X', last_name: 'Y', password: 'another password' } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { success: false, error: 'Invalid or expired link' }, 'single use');
    const b = await signIn(t.app, 'founder@fresh.test');
    assert.equal(b.me.workspace.id, workspace.id);
  });

  test('user add and user link print setup links; a fresh link works, an expired or unknown one is 400', async () => {
    const ws = await seedWorkspace(t.db);
    const added = await spawnCli(t.url, ['user', 'add', '--workspace', String(ws.workspace.id), '--email', 'crew@example.test', '--role', 'member', '--json'], { PUBLIC_URL: ORIGIN });
    assert.equal(added.code, 0, added.stderr);
    const { user } = JSON.parse(added.stdout);
    assert.match(user.setup_url, /\/app\/setup\//);
    const linked = await spawnCli(t.url, ['user', 'link', '--workspace', String(ws.workspace.id), '--user', user.user_id, '--json'], { PUBLIC_URL: ORIGIN });
    assert.equal(linked.code, 0, linked.stderr);
    const { setup_url } = JSON.parse(linked.stdout);
    assert.deepEqual(Object.keys(JSON.parse(linked.stdout)), ['setup_url']);
    assert.notEqual(setup_url, user.setup_url);
    const wrong = await spawnCli(t.url, ['user', 'link', '--workspace', String(ws.workspace.id), '--user', '00000000-0000-4000-8000-000000000000', '--json']);
    assert.notEqual(wrong.code, 0);

    // The first link, expired.
    await t.db.updateTable('auth_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('token_hash', '=', hashToken(tokenOf(user.setup_url))).execute();
    for (const token of [tokenOf(user.setup_url), 'nope', tokenOf(setup_url).replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))]) {
      const res = await call(t.app, 'POST', '/api/auth/setup', { body: { token, first_name: 'C', last_name: 'Rew', password: PASSWORD } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { success: false, error: 'Invalid or expired link' });
      assert.equal((await call(t.app, 'POST', '/api/auth/setup-info', { body: { token } })).status, 400);
    }
    // Bad passwords: refused, nothing used.
    for (const [password, message] of [
      ['short', 'must be at least 10 characters'],
      ['x'.repeat(201), 'must be at most 200 characters'],
      ['Crew@Example.test', 'must not be your email address'],
    ]) {
      const res = await call(t.app, 'POST', '/api/auth/setup', { body: { token: tokenOf(setup_url), first_name: 'C', last_name: 'Rew', password } });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.details, [{ path: ['password'], message }]);
    }
    const missing = await call(t.app, 'POST', '/api/auth/setup', { body: { token: tokenOf(setup_url) } });
    assert.deepEqual(missing.body.details.map((d: { path: string[] }) => d.path[0]), ['first_name', 'last_name', 'password']);
    assert.equal(await t.db.selectFrom('accounts').select('id').where('email', '=', 'crew@example.test').executeTakeFirst(), undefined);
    const ok = await call(t.app, 'POST', '/api/auth/setup', { body: { token: tokenOf(setup_url), first_name: 'C', last_name: 'Rew', password: 'x'.repeat(200) } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.user.role, 'member');
    const account = await t.db.selectFrom('accounts').select('password_hash').where('email', '=', 'crew@example.test').executeTakeFirstOrThrow();
    assert.match(account.password_hash!, /^scrypt\$16384\$8\$1\$/);
  });
});

describe('a person in two workspaces', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof seedWorkspace>>;
  let b: Awaited<ReturnType<typeof seedWorkspace>>;
  let browser: Browser;
  before(async () => {
    t = await buildTestApp();
    a = await seedWorkspace(t.db, 'Alpha');
    b = await seedWorkspace(t.db, 'Beta');
    browser = await setUp(t.app, t.db, a.workspace.id, a.owner.user_id);
  });
  after(() => t.close());

  test('joining: a person with a password signs in, then the link moves the session to the new workspace', async () => {
    const member = await seedUser(t.db, b.workspace.id, 'manager', a.owner.email);
    const { url } = await mintSetupLink(t.db, b.workspace.id, member.user_id, ORIGIN);
    const info = await call(t.app, 'POST', '/api/auth/setup-info', { body: { token: tokenOf(url) } });
    assert.equal(info.body.data.has_password, true);
    const anonymous = await call(t.app, 'POST', '/api/auth/setup', { body: { token: tokenOf(url), first_name: 'X', last_name: 'Y', password: 'new password 123' } });
    assert.equal(anonymous.status, 401, 'no session: sign in first');
    assert.equal((await signIn(t.app, a.owner.email)).me.workspace.id, a.workspace.id, 'the password is unchanged');
    const noCsrf = await call(t.app, 'POST', '/api/auth/setup', { cookie: browser.cookie, body: { token: tokenOf(url) } });
    assert.equal(noCsrf.status, 403);
    const joined = await browser.post('/api/auth/setup', { token: tokenOf(url) });
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.equal(joined.body.data.workspace.id, b.workspace.id);
    assert.equal(joined.body.data.user.role, 'manager');
    assert.deepEqual(
      joined.body.data.workspaces.map((w: { name: string; role: string }) => [w.name, w.role]),
      [
        ['Alpha', 'owner'],
        ['Beta', 'manager'],
      ],
    );
    assert.equal((await browser.post('/api/auth/setup', { token: tokenOf(url) })).status, 400, 'single use');
  });

  test("a new person's setup ignores whatever session the browser already has", async () => {
    const m = await seedUser(t.db, a.workspace.id, 'member');
    const { url } = await mintSetupLink(t.db, a.workspace.id, m.user_id, ORIGIN);
    const res = await call(t.app, 'POST', '/api/auth/setup', { cookie: browser.cookie, body: { token: tokenOf(url), first_name: 'New', last_name: 'Person', password: PASSWORD } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.user.id, m.user_id);
    assert.notEqual(cookieOf(res), browser.cookie);
    assert.equal((await browser.get('/api/v1/me')).status, 200, "the other person's session is untouched");
  });

  test('/me lists both; switch-workspace moves the session; ids of the other workspace behave as missing', async () => {
    const contactA = (await browser.post('/api/auth/switch-workspace', { workspace_id: a.workspace.id })).body;
    assert.equal(contactA.data.workspace.id, a.workspace.id);
    const inA = await browser.post('/api/v1/contacts', { first_name: 'Only', last_name: 'InA' });
    assert.equal(inA.status, 201);
    const me = await browser.get('/api/v1/me');
    assert.equal(me.body.data.workspaces.length, 2);
    assert.equal(me.body.data.user.role, 'owner');
    const switched = await browser.post('/api/auth/switch-workspace', { workspace_id: b.workspace.id });
    assert.equal(switched.status, 200);
    assert.equal(switched.body.data.csrf_token, browser.csrf, 'the same session');
    const missing = await browser.get(`/api/v1/contacts/${inA.body.data.id}`);
    const absent = await browser.get('/api/v1/contacts/999999');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, absent.body);
    assert.equal((await browser.put(`/api/v1/contacts/${inA.body.data.id}`, { first_name: 'Hacked' })).status, 404);
    assert.equal((await browser.get('/api/v1/me')).body.data.user.role, 'manager');
    const created = await browser.post('/api/v1/contacts', { first_name: 'In', last_name: 'Beta' });
    assert.equal(created.body.data.workspace_id ?? b.workspace.id, b.workspace.id);
    const row = await t.db.selectFrom('contacts').select(['workspace_id', 'created_by']).where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    assert.equal(row.workspace_id, b.workspace.id);
    // A workspace the person is not in: 404, the session stays where it was.
    const other = await seedWorkspace(t.db, 'Gamma');
    const refused = await browser.post('/api/auth/switch-workspace', { workspace_id: other.workspace.id });
    assert.equal(refused.status, 404);
    assert.equal((await browser.get('/api/v1/me')).body.data.workspace.id, b.workspace.id);
    assert.equal((await call(t.app, 'POST', '/api/auth/switch-workspace', { body: { workspace_id: a.workspace.id } })).status, 401);
  });

  test('removing a member ends their sessions in that workspace at once', async () => {
    const m = await seedUser(t.db, a.workspace.id, 'member');
    const s = await setUp(t.app, t.db, a.workspace.id, m.user_id);
    assert.equal((await s.get('/api/v1/me')).status, 200);
    await t.db.deleteFrom('users').where('id', '=', m.id).execute();
    assert.equal((await s.get('/api/v1/me')).status, 401);
    assert.equal(await t.db.selectFrom('sessions').select('id').where('user_id', '=', m.id).executeTakeFirst(), undefined);
  });

  test('a changed role applies to the next request', async () => {
    const m = await seedUser(t.db, a.workspace.id, 'manager');
    const s = await setUp(t.app, t.db, a.workspace.id, m.user_id);
    assert.equal((await s.get('/api/v1/quotes')).status, 200);
    await t.db.updateTable('users').set({ role: 'member' }).where('id', '=', m.id).execute();
    assert.equal((await s.get('/api/v1/quotes')).status, 403);
  });

  test('changing the password needs the current one and ends every other session', async () => {
    const m = await seedUser(t.db, a.workspace.id, 'admin');
    const one = await setUp(t.app, t.db, a.workspace.id, m.user_id);
    const two = await signIn(t.app, m.email);
    const wrong = await one.post('/api/auth/change-password', { current_password: 'not it at all', new_password: 'brand new password' });
    assert.equal(wrong.status, 400);
    const short = await one.post('/api/auth/change-password', { current_password: PASSWORD, new_password: 'short' });
    assert.equal(short.status, 400);
    assert.equal((await two.get('/api/v1/me')).status, 200, 'nothing changed yet');
    const ok = await one.post('/api/auth/change-password', { current_password: PASSWORD, new_password: 'brand new password' });
    assert.equal(ok.status, 200);
    assert.equal((await one.get('/api/v1/me')).status, 200, 'this session stays');
    assert.equal((await two.get('/api/v1/me')).status, 401, 'the other ends');
    assert.equal((await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: m.email, password: PASSWORD } })).status, 401);
    await signIn(t.app, m.email, 'brand new password');
  });
});

describe('forgot and reset password, by real email', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db, 'Sparkle Cleaning');
    await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
  });
  after(() => t.close());

  test('the email names the workspace and carries a one-hour, single-use link; using it signs in and ends every other session', async () => {
    const rx = await startSmtpReceiver();
    const worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, smtpUrl: rx.url }, pollMs: 20 });
    worker.start();
    try {
      const old = await signIn(t.app, ws.owner.email);
      const res = await call(t.app, 'POST', '/api/auth/forgot-password', { body: { email: ws.owner.email.toUpperCase() } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { success: true, data: { message: 'If an account exists for that email, we sent a link' } });
      const unknown = await call(t.app, 'POST', '/api/auth/forgot-password', { body: { email: 'nobody@example.test' } });
      assert.deepEqual(unknown.body, res.body, 'no account enumeration');
      const deadline = Date.now() + 10_000;
      while (rx.mails.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(rx.mails.length, 1, 'one email, none for the unknown address');
      const mail = rx.mails[0];
      assert.deepEqual(mail.to, [ws.owner.email]);
      const raw = mail.raw.replace(/=\r?\n/g, '');
      assert.match(raw, /Subject: Reset your Sparkle Cleaning password/);
      assert.match(raw, /your Sparkle Cleaning account/);
      const link = /http:\/\/fieldwork\.test\/app\/reset-password\/([A-Za-z0-9_-]{43})/.exec(raw);
      assert.ok(link, raw);
      const stored = await t.db.selectFrom('auth_links').select('expires_at').where('token_hash', '=', hashToken(link[1])).executeTakeFirstOrThrow();
      const minutes = (Date.parse(stored.expires_at) - Date.now()) / 60_000;
      assert.ok(minutes > 59 && minutes <= 60, `valid one hour (${minutes})`);

      const short = await call(t.app, 'POST', '/api/auth/reset-password', { body: { token: link[1], password: 'short' } });
      assert.equal(short.status, 400);
      assert.equal((await old.get('/api/v1/me')).status, 200, 'a refused reset changes nothing');
      const reset = await call(t.app, 'POST', '/api/auth/reset-password', { body: { token: link[1], password: 'a fresh new password' } });
      assert.equal(reset.status, 200);
      assert.ok(cookieOf(reset));
      assert.equal(reset.body.data.user.id, ws.owner.user_id);
      assert.equal((await old.get('/api/v1/me')).status, 401, 'every other session ended');
      const again = await call(t.app, 'POST', '/api/auth/reset-password', { body: { token: link[1], password: 'yet another password' } });
      assert.deepEqual(again.body, { success: false, error: 'Invalid or expired link' });
      await signIn(t.app, ws.owner.email, 'a fresh new password');
    } finally {
      await worker.stop();
      await rx.close();
    }
  });

  test('a setup email (team invites) goes out by SMTP with a working link, naming the workspace and who invited', async () => {
    const rx = await startSmtpReceiver();
    const worker = new Worker({ db: t.db, dialect: t.database.dialect, config: { ...t.config, smtpUrl: rx.url }, pollMs: 20 });
    worker.start();
    try {
      const m = await seedUser(t.db, ws.workspace.id, 'manager');
      const links = async () => (await t.db.selectFrom('auth_links').select('id').execute()).length;
      const before = await links();
      await assert.rejects(emailSetupLink(t.db, ws.workspace.id, '00000000-0000-4000-8000-000000000000', ORIGIN), /User not found/);
      assert.equal(await links(), before, 'nothing minted for nobody');
      await emailSetupLink(t.db, ws.workspace.id, m.user_id, ORIGIN, 'Olive Owner');
      const deadline = Date.now() + 10_000;
      while (rx.mails.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(rx.mails.length, 1);
      const raw = rx.mails[0].raw.replace(/=\r?\n/g, '');
      assert.deepEqual(rx.mails[0].to, [m.email]);
      assert.match(raw, /Subject: Join Sparkle Cleaning on Fieldwork/);
      assert.match(raw, /Olive Owner invited you to join Sparkle Cleaning/);
      const token = /\/app\/setup\/([A-Za-z0-9_-]{43})/.exec(raw)![1];
      const res = await call(t.app, 'POST', '/api/auth/setup', { body: { token, first_name: 'Max', last_name: 'Manager', password: PASSWORD } });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.user.role, 'manager');
    } finally {
      await worker.stop();
      await rx.close();
    }
  });

  test('the reset email is queued with the link, in the message log; an expired reset link is 400', async () => {
    const m = await seedUser(t.db, ws.workspace.id, 'member');
    await call(t.app, 'POST', '/api/auth/forgot-password', { body: { email: m.email } });
    const msg = await t.db.selectFrom('messages').selectAll().where('recipient', '=', m.email).executeTakeFirstOrThrow();
    assert.equal(msg.type, 'password_reset');
    assert.equal(msg.workspace_id, ws.workspace.id);
    const token = /reset-password\/([A-Za-z0-9_-]{43})/.exec(msg.body_text)![1];
    await t.db.updateTable('auth_links').set({ expires_at: new Date(Date.now() - 1).toISOString() }).where('token_hash', '=', hashToken(token)).execute();
    const res = await call(t.app, 'POST', '/api/auth/reset-password', { body: { token, password: 'a fresh new password' } });
    assert.deepEqual(res.body, { success: false, error: 'Invalid or expired link' });
    // A member who never set a password may set one this way (it proves the email, as a setup link does).
    await call(t.app, 'POST', '/api/auth/forgot-password', { body: { email: m.email } });
    const next = await t.db.selectFrom('messages').select('body_text').where('recipient', '=', m.email).orderBy('id', 'desc').executeTakeFirstOrThrow();
    const fresh = /reset-password\/([A-Za-z0-9_-]{43})/.exec(next.body_text)![1];
    assert.equal((await call(t.app, 'POST', '/api/auth/reset-password', { body: { token: fresh, password: 'a fresh new password' } })).status, 200);
  });
});

describe('reset emails are limited', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('at most 10 reset emails per address in 15 minutes; the answer never changes', async () => {
    const ws = await seedWorkspace(t.db);
    const answers = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: ws.owner.email }, remoteAddress: `10.1.1.${i}` });
      assert.equal(res.statusCode, 200);
      answers.add(res.body);
    }
    assert.equal(answers.size, 1);
    const sent = await t.db.selectFrom('messages').select('id').where('recipient', '=', ws.owner.email).execute();
    assert.equal(sent.length, 10);
  });
});

describe('brute force', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
  });
  after(() => t.close());

  const attempt = (app: typeof t.app, email: string, password: string, ip: string) =>
    app.inject({ method: 'POST', url: '/api/auth/sign-in', payload: { email, password }, remoteAddress: ip });

  test('10 failures per email lock it for 15 minutes: 429 with Retry-After, even with the right password', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await attempt(t.app, ws.owner.email, 'wrong password', `10.0.0.${i}`)).statusCode, 401);
    const started = Date.now();
    const locked = await attempt(t.app, ws.owner.email, PASSWORD, '10.0.1.1');
    assert.ok(Date.now() - started < 40, 'no password hash was computed');
    assert.equal(locked.statusCode, 429);
    assert.deepEqual(locked.json(), { success: false, error: 'Too many attempts, try again later' });
    const retry = Number(locked.headers['retry-after']);
    assert.ok(retry > 800 && retry <= 900, String(retry));
  });

  test('10 failures from one address lock that address, whatever the email', async () => {
    const m = await seedUser(t.db, ws.workspace.id, 'member');
    await setUp(t.app, t.db, ws.workspace.id, m.user_id);
    for (let i = 0; i < 10; i++) assert.equal((await attempt(t.app, `guess${i}@example.test`, 'wrong password', '10.9.9.9')).statusCode, 401);
    assert.equal((await attempt(t.app, m.email, PASSWORD, '10.9.9.9')).statusCode, 429);
    assert.equal((await attempt(t.app, m.email, PASSWORD, '10.9.9.8')).statusCode, 200, 'another address is not locked');
  });

  test('shared through Redis: two instances count together', { skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL not set' }, async () => {
    const config = loadConfig({ PUBLIC_URL: ORIGIN, REDIS_URL: process.env.TEST_REDIS_URL });
    const redisA = connectRedis(config.redisUrl)!;
    const redisB = connectRedis(config.redisUrl)!;
    const one = await buildApp({ config, database: t.database, redis: redisA, logger: false });
    const two = await buildApp({ config, database: t.database, redis: redisB, logger: false });
    try {
      const m = await seedUser(t.db, ws.workspace.id, 'member', `redis-${Date.now()}@example.test`);
      await setUp(t.app, t.db, ws.workspace.id, m.user_id);
      const ip = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      for (let i = 0; i < 10; i++) assert.equal((await attempt(i % 2 ? one : two, m.email, 'wrong password', ip)).statusCode, 401);
      const locked = await attempt(one, m.email, PASSWORD, '10.78.0.1');
      assert.equal(locked.statusCode, 429);
      assert.ok(Number(locked.headers['retry-after']) > 800);
      assert.equal((await attempt(two, m.email, PASSWORD, '10.78.0.2')).statusCode, 429);
      assert.equal((await attempt(t.app, m.email, PASSWORD, '10.78.0.3')).statusCode, 200, 'the in-process counters of a third instance know nothing');
    } finally {
      await one.close();
      await two.close();
      redisA.disconnect();
      redisB.disconnect();
    }
  });
});
