import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, seedUser, seedWorkspace, type TestApp, withinOneWindow } from './helpers.ts';
import { call, cookieOf, ORIGIN, PASSWORD, setUp, signIn } from './session-client.ts';

// APP.md A1: people, sessions, sign-in, CSRF and /me, on the real database.
describe('sessions', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
  });
  after(() => t.close());

  test('sign-in: the right password sets the session cookie (HttpOnly, SameSite=Lax, Path=/) and answers me', async () => {
    const res = await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: ws.owner.email.toUpperCase(), password: PASSWORD } });
    assert.equal(res.status, 200);
    const line = [res.headers['set-cookie']].flat()[0] as string;
    assert.match(line, /^fieldwork_session=[A-Za-z0-9_-]{43}; /);
    for (const flag of ['Path=/', 'HttpOnly', 'SameSite=Lax']) assert.ok(line.split('; ').includes(flag), flag);
    assert.ok(!line.includes('Secure'), 'not Secure on http');
    const me = res.body.data;
    assert.equal(me.user.id, ws.owner.user_id);
    assert.equal(me.user.email, ws.owner.email);
    assert.equal(me.user.role, 'owner');
    assert.equal(me.workspace.id, ws.workspace.id);
    assert.equal(me.workspace.name, ws.workspace.name);
    assert.deepEqual(me.scopes, ['read', 'write', 'team:manage', 'keys:manage']); // A60: an owner's session-only scopes
    assert.match(me.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(me.workspaces, [{ id: ws.workspace.id, name: ws.workspace.name, role: 'owner' }]);
    // The token is stored only as a hash.
    const token = cookieOf(res)!;
    const rows = await t.db.selectFrom('sessions').select('token_hash').execute();
    assert.ok(rows.length >= 1 && rows.every((r) => r.token_hash !== token && r.token_hash.length === 64));
  });

  test('a wrong password and an unknown email get the same 401 text, and no cookie', async () => {
    for (const body of [
      { email: ws.owner.email, password: 'wrong password!' },
      { email: 'nobody@example.test', password: PASSWORD },
      { email: ws.owner.email, password: '' },
    ]) {
      const res = await call(t.app, 'POST', '/api/auth/sign-in', { body, headers: { 'x-forwarded-for': '1' } });
      if (body.password === '') {
        assert.equal(res.status, 400); // a body that fails validation
        continue;
      }
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { success: false, error: 'Email or password is incorrect' });
      assert.equal(cookieOf(res), null);
    }
  });

  test('a member who never set a password cannot sign in', async () => {
    const u = await seedUser(t.db, ws.workspace.id, 'manager');
    const res = await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'Email or password is incorrect');
  });

  test('the session works on /api/v1 as its member; without a cookie or key: 401', async () => {
    const b = await signIn(t.app, ws.owner.email);
    const created = await b.post('/api/v1/contacts', { first_name: 'Ann', last_name: 'Lee' });
    assert.equal(created.status, 201);
    const row = await t.db.selectFrom('contacts').select('created_by').where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    assert.equal(row.created_by, ws.owner.user_id, 'created_by names the signed-in person');
    assert.equal((await b.get(`/api/v1/contacts/${created.body.data.id}`)).status, 200);
    assert.equal((await call(t.app, 'GET', '/api/v1/contacts')).status, 401);
    const forged = await call(t.app, 'GET', '/api/v1/contacts', { cookie: 'A'.repeat(43) });
    assert.equal(forged.status, 401);
  });

  test('CSRF: a session write without the token or with a wrong one is 403 Invalid CSRF token and changes nothing', async () => {
    const b = await signIn(t.app, ws.owner.email);
    const before = await t.db.selectFrom('contacts').select('id').execute();
    for (const csrf of [undefined, 'x', b.csrf.slice(0, -1) + (b.csrf.endsWith('A') ? 'B' : 'A')]) {
      const res = await call(t.app, 'POST', '/api/v1/contacts', { cookie: b.cookie, csrf, body: { first_name: 'No', last_name: 'Way' } });
      assert.equal(res.status, 403);
      assert.deepEqual(res.body, { success: false, error: 'Invalid CSRF token' });
    }
    const c = await b.post('/api/v1/contacts', { first_name: 'Ok', last_name: 'Then' });
    for (const method of ['PUT', 'DELETE']) {
      const res = await call(t.app, method, `/api/v1/contacts/${c.body.data.id}`, { cookie: b.cookie, body: method === 'DELETE' ? undefined : { first_name: 'Changed' } });
      assert.equal(res.status, 403, method);
    }
    const after = await t.db.selectFrom('contacts').select(['id', 'first_name']).execute();
    assert.equal(after.length, before.length + 1);
    assert.equal(after.find((r) => r.id === c.body.data.id)?.first_name, 'Ok');
    // Another session's token is not this session's.
    const other = await signIn(t.app, ws.owner.email);
    const res = await call(t.app, 'POST', '/api/v1/contacts', { cookie: b.cookie, csrf: other.csrf, body: { first_name: 'No', last_name: 'Way' } });
    assert.equal(res.status, 403);
    // Sign-out needs it too.
    assert.equal((await call(t.app, 'POST', '/api/auth/sign-out', { cookie: b.cookie })).status, 403);
    assert.equal((await b.get('/api/v1/contacts')).status, 200, 'still signed in');
  });

  test('a bearer key is unchanged beside a cookie, and needs no CSRF token', async () => {
    const b = await signIn(t.app, ws.owner.email);
    const res = await call(t.app, 'POST', '/api/v1/contacts', { cookie: b.cookie, headers: { authorization: `Bearer ${ws.token}` }, body: { first_name: 'Key', last_name: 'Write' } });
    assert.equal(res.status, 201);
    const bad = await call(t.app, 'GET', '/api/v1/contacts', { cookie: b.cookie, headers: { authorization: 'Bearer nope' } });
    assert.equal(bad.status, 401, 'a bad key is not rescued by the cookie');
  });

  test('/me for a key: its user and workspace, no csrf_token, only its workspace', async () => {
    const res = await client(t.app, ws.token).get('/api/v1/me');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.user.id, ws.owner.user_id);
    assert.equal(res.body.data.workspace.id, ws.workspace.id);
    assert.deepEqual(res.body.data.scopes, ['read', 'write']);
    assert.equal('csrf_token' in res.body.data, false);
    assert.deepEqual(res.body.data.workspaces, [{ id: ws.workspace.id, name: ws.workspace.name, role: 'owner' }]);
  });

  test('sign-out ends the session; the old cookie is refused', async () => {
    const b = await signIn(t.app, ws.owner.email);
    const out = await b.post('/api/auth/sign-out');
    assert.equal(out.status, 200);
    assert.match([out.headers['set-cookie']].flat()[0] as string, /^fieldwork_session=; .*Max-Age=0/);
    assert.equal((await b.get('/api/v1/me')).status, 401);
    // Signing out again (no live session) is fine.
    assert.equal((await b.post('/api/auth/sign-out')).status, 200);
  });

  test('sign out everywhere ends every session of the person', async () => {
    const a = await signIn(t.app, ws.owner.email);
    const b = await signIn(t.app, ws.owner.email);
    assert.equal((await call(t.app, 'POST', '/api/auth/sign-out-everywhere', { cookie: a.cookie })).status, 403, 'CSRF');
    assert.equal((await a.post('/api/auth/sign-out-everywhere')).status, 200);
    assert.equal((await a.get('/api/v1/me')).status, 401);
    assert.equal((await b.get('/api/v1/me')).status, 401);
    assert.equal((await a.post('/api/auth/sign-out-everywhere')).status, 401);
    assert.equal((await client(t.app, ws.token).get('/api/v1/me')).status, 200, 'keys are not sessions');
  });

  test('auth endpoints: JSON only (415), other origins 403, errors in the envelope', async () => {
    const form = await t.app.inject({ method: 'POST', url: '/api/auth/sign-in', payload: `email=${ws.owner.email}&password=${PASSWORD}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.statusCode, 415);
    assert.equal(form.json().success, false);
    const text = await t.app.inject({ method: 'POST', url: '/api/auth/sign-out', payload: '', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.statusCode, 415);
    const evil = await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: ws.owner.email, password: PASSWORD }, headers: { origin: 'https://evil.example' } });
    assert.equal(evil.status, 403);
    assert.equal(evil.body.success, false);
    assert.equal(cookieOf(evil), null);
    const same = await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: ws.owner.email, password: PASSWORD }, headers: { origin: ORIGIN } });
    assert.equal(same.status, 200);
    const bad = await t.app.inject({ method: 'POST', url: '/api/auth/sign-in', payload: '{', headers: { 'content-type': 'application/json' } });
    assert.deepEqual(bad.json(), { success: false, error: 'Invalid JSON body' });
  });

  test('sign-in costs at most 4 statements', async () => {
    t.queries.length = 0;
    await signIn(t.app, ws.owner.email);
    assert.ok(t.queries.length <= 4, t.queries.join('\n'));
  });
});

describe('session expiry', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp({ SESSION_IDLE: '1200ms', SESSION_TTL: '3s', PUBLIC_URL: 'https://office.example' });
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  test('Secure cookie when PUBLIC_URL is https; Max-Age is SESSION_TTL', async () => {
    const b = await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    const res = await call(t.app, 'POST', '/api/auth/sign-in', { body: { email: ws.owner.email, password: PASSWORD } });
    const line = [res.headers['set-cookie']].flat()[0] as string;
    assert.ok(line.split('; ').includes('Secure'));
    assert.ok(line.split('; ').includes('Max-Age=3'));
    assert.ok(b.cookie);
  });

  test('idle expiry: a session used within SESSION_IDLE lives on; left alone longer, it ends', async () => {
    const b = await signIn(t.app, ws.owner.email);
    for (let i = 0; i < 3; i++) {
      await sleep(500);
      assert.equal((await b.get('/api/v1/me')).status, 200, `request ${i}`);
    }
    await sleep(1400);
    assert.equal((await b.get('/api/v1/me')).status, 401);
    const gone = await t.db.selectFrom('sessions').select('id').where('token_hash', '=', (await import('../src/kernel/tokens.ts')).hashToken(b.cookie)).execute();
    assert.equal(gone.length, 0, 'an expired session is deleted');
  });

  test('absolute expiry: however busy, a session ends SESSION_TTL after sign-in', async () => {
    const b = await signIn(t.app, ws.owner.email);
    const started = Date.now();
    while (Date.now() - started < 2800) {
      assert.equal((await b.get('/api/v1/me')).status, 200);
      await sleep(400);
    }
    await sleep(400);
    assert.equal((await b.get('/api/v1/me')).status, 401);
  });
});

describe('sessions through the shared mechanisms', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp({ API_RATE_LIMIT: '6/1m' });
    ws = await seedWorkspace(t.db);
    await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
  });
  after(() => t.close());

  test('E11: an Idempotency-Key repeated by the same person replays the stored answer; the key of another caller does not collide', async () => {
    const a = await signIn(t.app, ws.owner.email);
    const send = (cookie: string, csrf: string) =>
      call(t.app, 'POST', '/api/v1/contacts', { cookie, csrf, headers: { 'idempotency-key': 'visit-42' }, body: { first_name: 'Once', last_name: 'Only' } });
    const first = await send(a.cookie, a.csrf);
    assert.equal(first.status, 201);
    const b = await signIn(t.app, ws.owner.email); // another browser of the same person
    const again = await send(b.cookie, b.csrf);
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    const rows = await t.db.selectFrom('contacts').select('id').where('first_name', '=', 'Once').execute();
    assert.equal(rows.length, 1, 'one contact');
    const byKey = await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'Once', last_name: 'Only' }, { 'idempotency-key': 'visit-42' });
    assert.notEqual(byKey.body.data.id, first.body.data.id, "a key's Idempotency-Keys are its own");
  });

  test('D18: the rate limit counts per person: all their sessions share one counter; keys have their own', async () => {
    await withinOneWindow(60_000);
    const person = await seedUser(t.db, ws.workspace.id, 'manager');
    const a = await setUp(t.app, t.db, ws.workspace.id, person.user_id);
    const b = await signIn(t.app, person.email);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await a.get('/api/v1/contacts')).status, (await b.get('/api/v1/contacts')).status);
    assert.deepEqual(statuses.slice(0, 6), [200, 200, 200, 200, 200, 200]);
    assert.ok(statuses.slice(6).every((s) => s === 429), String(statuses));
    const limited = await a.get('/api/v1/contacts');
    assert.deepEqual(limited.body, { success: false, error: 'Rate limit exceeded. Try again later.' });
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await client(t.app, ws.token).get('/api/v1/contacts')).status, 200, 'the key has its own counter');
  });
});
