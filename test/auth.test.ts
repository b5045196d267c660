import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { hasScope, KeyAuthenticator } from '../src/http/auth.ts';
import { authenticated } from '../src/http/authenticated.ts';
import { registerErrorHandler } from '../src/http/error-handler.ts';
import { SessionAuthenticator } from '../src/http/sessions.ts';
import { revokeKey } from '../src/modules/keys/keys.service.ts';
import { buildTestApp, client, keyFor, seedWorkspace, type TestApp } from './helpers.ts';

// SPEC "Authentication", D2, D21, D28: every outcome of a bearer token.
describe('authentication and scopes', () => {
  let t: TestApp;
  let ws: Awaited<ReturnType<typeof seedWorkspace>>;
  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
  });
  after(() => t.close());

  const MISSING = { success: false, error: 'Missing authorization header' };
  const INVALID = { success: false, error: 'Invalid API key' };

  test('D28: no header, or not Bearer <token>: 401 Missing authorization header', async () => {
    const api = client(t.app);
    assert.deepEqual((await api.get('/api/v1/contacts')).body, MISSING);
    for (const h of ['Basic abc', 'Bearer', 'Bearer ', ws.token, `Token ${ws.token}`]) {
      const res = await api.get('/api/v1/contacts', { authorization: h });
      assert.equal(res.status, 401, h);
      assert.deepEqual(res.body, MISSING, h);
    }
  });

  test('D2: unknown, malformed or revoked keys: 401 Invalid API key', async () => {
    const tampered = `${ws.token.slice(0, -1)}${ws.token.endsWith('a') ? 'b' : 'a'}`;
    for (const token of ['wk_nope', tampered, `wk_${'a'.repeat(8)}.${'b'.repeat(64)}`, 'x'.repeat(64), 'x'.repeat(5000)]) {
      const res = await client(t.app, token).get('/api/v1/contacts');
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, INVALID);
    }
    const token = await keyFor(t.db, ws.workspace.id, 'general');
    assert.equal((await client(t.app, token).get('/api/v1/contacts')).status, 200);
    const keys = await t.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    await revokeKey(t.db, keys.id);
    // Keys are cached per process: a revocation is honoured within one second (F54),
    // so a request sent a second after it is refused.
    await new Promise((r) => setTimeout(r, 1000));
    const res = await client(t.app, token).get('/api/v1/contacts');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, INVALID);
  });

  test('a key without a user: 403 (SPEC Authentication 5)', async () => {
    const token = await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: null });
    const res = await client(t.app, token).get('/api/v1/contacts');
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { success: false, error: 'API key must be associated with a user. Please recreate the key.' });
  });

  test('only the hash of a key is stored', async () => {
    const rows = await t.db.selectFrom('api_keys').select('token_hash').execute();
    for (const r of rows) {
      assert.match(r.token_hash, /^[0-9a-f]{64}$/);
      assert.notEqual(r.token_hash, ws.token.split('.')[1]);
    }
  });

  test('token format: wk_<8-char workspace hash>.<64-char secret>', async () => {
    const w = await t.db.selectFrom('workspaces').select('hash').where('id', '=', ws.workspace.id).executeTakeFirstOrThrow();
    assert.match(ws.token, new RegExp(`^wk_${w.hash}\\.[0-9a-f]{64}$`));
  });

  test('legacy keys (no wk_ prefix) work on the REST API', async () => {
    const token = await keyFor(t.db, ws.workspace.id, 'general', undefined, { legacy: true });
    assert.ok(!token.startsWith('wk_'));
    const res = await client(t.app, token).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.id, ws.workspace.id);
  });

  test('missing scope: 403 with the exact text; read/write wildcards grant every <x>:read/<x>:write', async () => {
    const readOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read']));
    assert.equal((await readOnly.get('/api/v1/contacts')).status, 200);
    const denied = await readOnly.post('/api/v1/contacts', { first_name: 'a', last_name: 'b' });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { success: false, error: 'Insufficient permissions. Required scope: contacts:write' });
    assert.deepEqual((await readOnly.get('/api/v1/users')).body, { success: false, error: 'Insufficient permissions. Required scope: users:read' });
    assert.deepEqual((await readOnly.get('/api/v1/workspace')).body, { success: false, error: 'Insufficient permissions. Required scope: workspace:read' });

    const readAll = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['read']));
    for (const path of ['/api/v1/contacts', '/api/v1/users', '/api/v1/workspace']) assert.equal((await readAll.get(path)).status, 200, path);
    assert.equal((await readAll.post('/api/v1/contacts', { first_name: 'a', last_name: 'b' })).status, 403);

    const writeOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['write']));
    assert.equal((await writeOnly.post('/api/v1/contacts', { first_name: 'a', last_name: 'b' })).status, 201);
    assert.equal((await writeOnly.get('/api/v1/contacts')).status, 403);
  });

  test('F120: a scope check is exact: `write` grants no bare `read` (nor `read` a bare `write`), and neither grants a scope that is not read or write', async () => {
    assert.equal(hasScope(['write'], 'read'), false);
    assert.equal(hasScope(['read'], 'write'), false);
    assert.equal(hasScope(['write'], 'contacts:read'), false);
    assert.equal(hasScope(['read'], 'contacts:read'), true);
    assert.equal(hasScope(['write'], 'contacts:write'), true);
    assert.equal(hasScope(['read', 'write'], 'keys:admin'), false);
    assert.equal(hasScope(['contacts:read'], 'contacts:read'), true);
    assert.equal(hasScope(['read'], 'read'), true);
    // Through the one authenticated plugin, on a route asking for a bare `read`, with keys of this database.
    const probe = Fastify();
    registerErrorHandler(probe);
    const authenticator = KeyAuthenticator.forDatabase(t.database);
    const sessions = new SessionAuthenticator(t.db, { idleMs: t.config.sessionIdle, ttlMs: t.config.sessionTtl, secure: false });
    await probe.register(async (scoped) => {
      await authenticated(scoped, { authenticator, sessions, redis: null, limit: { max: 1000, windowMs: 60_000 } });
      scoped.get('/probe', { config: { scope: 'read' } }, async () => ({ ok: true }));
    });
    try {
      const as = async (scopes: string[]) => {
        const token = await keyFor(t.db, ws.workspace.id, 'rest', scopes);
        return probe.inject({ url: '/probe', headers: { authorization: `Bearer ${token}` } });
      };
      const writeOnly = await as(['write']);
      assert.equal(writeOnly.statusCode, 403);
      assert.deepEqual(writeOnly.json(), { success: false, error: 'Insufficient permissions. Required scope: read' });
      assert.equal((await as(['contacts:read'])).statusCode, 403);
      assert.equal((await as(['read'])).statusCode, 200);
    } finally {
      await probe.close();
      await authenticator.close();
    }
  });

  test('default scopes per key type (SPEC Key types)', async () => {
    const embed = client(t.app, await keyFor(t.db, ws.workspace.id, 'embed_forms'));
    assert.equal((await embed.get('/api/v1/contacts')).status, 403);
    const rows = await t.db.selectFrom('api_keys').select(['type', 'scopes']).where('workspace_id', '=', ws.workspace.id).execute();
    const scopes = Object.fromEntries(rows.map((r) => [r.type, JSON.parse(r.scopes)]));
    assert.deepEqual(scopes.embed_forms, ['forms:read', 'forms:write', 'webhooks:read']);
    assert.deepEqual(scopes.general, ['read', 'write']);
  });

  test('the key user is the acting user (created_by)', async () => {
    const res = await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'a', last_name: 'b' });
    assert.equal(res.body.data.created_by.id, ws.owner.user_id);
  });

  test('last_used_at is written once, not on every request', async () => {
    const token = await keyFor(t.db, ws.workspace.id, 'general');
    const id = (await t.db.selectFrom('api_keys').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
    const api = client(t.app, token);
    await api.get('/api/v1/workspace');
    const read = async () => {
      for (let i = 0; i < 50; i++) {
        const r = await t.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
        if (r.last_used_at) return r.last_used_at;
        await new Promise((r) => setTimeout(r, 10));
      }
      return null;
    };
    const first = await read();
    assert.ok(first, 'last_used_at set after the first request');
    for (let i = 0; i < 5; i++) await api.get('/api/v1/workspace');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await read(), first, 'not rewritten within the minute');
  });

  test('another workspace\'s key sees only its own data', async () => {
    const other = await seedWorkspace(t.db);
    const mine = await client(t.app, ws.token).post('/api/v1/contacts', { first_name: 'Mine', last_name: 'Only' });
    const theirs = client(t.app, other.token);
    assert.equal((await theirs.get('/api/v1/contacts')).body.data.length, 0);
    assert.deepEqual((await theirs.get(`/api/v1/contacts/${mine.body.data.id}`)).body, { success: false, error: 'Contact not found' });
    assert.equal((await theirs.get('/api/v1/workspace')).body.data.id, other.workspace.id);
  });
});
