import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, client, keyFor, seedUser, seedWorkspace, type TestApp } from './helpers.ts';
import { type Browser, call, PASSWORD, setUp, signIn } from './session-client.ts';

// Issue 22: the team (invites, role changes, removal) and API keys, as signed-in
// owners and admins use them (real sessions, A1); a key, a manager and a member
// are refused. The invite's email is read from the outbox's messages table.

const refused = (scope: string) => ({ success: false, error: `Insufficient permissions. Required scope: ${scope}` });

describe('team and keys through sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const ownerOf = async () => {
    const ws = await seedWorkspace(t.db);
    const owner = await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    return { ws, owner };
  };
  const inviteLink = async (userId: number) => {
    const m = await t.db.selectFrom('messages').selectAll().where('type', '=', 'team_invite').where('module_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
    return { message: m, token: /\/app\/setup\/([A-Za-z0-9_-]+)/.exec(m.body_text)![1] };
  };

  test('an invite emails a setup link; the person joins with the invited role; resend and cancel', async () => {
    const { ws, owner } = await ownerOf();
    const made = await owner.post('/api/v1/team/invites', { email: 'New.Hire@Example.test', role: 'member' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const invite = made.body.data;
    assert.equal(invite.email, 'new.hire@example.test');
    assert.equal(invite.role, 'member');
    assert.ok(Date.parse(invite.expires_at) - Date.now() > 6.9 * 86_400_000);
    const { message, token } = await inviteLink(invite.id);
    assert.equal(message.recipient, 'new.hire@example.test');
    assert.equal(message.status, 'queued');
    assert.match(message.subject ?? '', new RegExp(`Join ${ws.workspace.name}`));
    assert.deepEqual((await owner.get('/api/v1/team/invites')).body.data.map((i: { id: number }) => i.id), [invite.id]);

    const resent = await owner.post(`/api/v1/team/invites/${invite.id}/resend`);
    assert.equal(resent.status, 200);
    const second = await inviteLink(invite.id);
    assert.notEqual(second.token, token, 'a fresh link');

    const joined = await call(t.app, 'POST', '/api/auth/setup', { body: { token: second.token, first_name: 'New', last_name: 'Hire', password: PASSWORD } });
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    const member = await signIn(t.app, 'new.hire@example.test');
    assert.equal(member.me.user.role, 'member');
    assert.deepEqual((await owner.get('/api/v1/team/invites')).body.data, [], 'joined: no longer pending');
    assert.deepEqual((await owner.delete(`/api/v1/team/invites/${invite.id}`)).body, { success: false, error: 'Invite not found' });

    const other = (await owner.post('/api/v1/team/invites', { email: 'maybe@example.test', role: 'manager' })).body.data;
    assert.deepEqual((await owner.delete(`/api/v1/team/invites/${other.id}`)).body, { success: true, data: { deleted: true } });
    const dead = await inviteLink(other.id);
    const late = await call(t.app, 'POST', '/api/auth/setup', { body: { token: dead.token, first_name: 'M', last_name: 'B', password: PASSWORD } });
    assert.deepEqual(late.body, { success: false, error: 'Invalid or expired link' }, 'a cancelled invite cannot be used');
    assert.equal((await owner.post('/api/v1/team/invites', { email: 'new.hire@example.test', role: 'member' })).status, 409, 'already a member');
    assert.equal((await owner.post('/api/v1/team/invites', { email: 'not-an-email', role: 'member' })).status, 400);
    assert.equal((await owner.post('/api/v1/team/invites', { email: 'x@example.test', role: 'boss' })).status, 400);
  });

  test("PUT /users/:user_id changes role, names and job title; the last owner can't be demoted or removed (409)", async () => {
    const { ws, owner } = await ownerOf();
    const worker = await seedUser(t.db, ws.workspace.id, 'member');
    const put = await owner.put(`/api/v1/users/${worker.user_id}`, { role: 'manager', job_title: 'Lead', first_name: 'Wes' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual([put.body.data.role, put.body.data.job_title, put.body.data.first_name], ['manager', 'Lead', 'Wes']);
    const demote = await owner.put(`/api/v1/users/${ws.owner.user_id}`, { role: 'admin' });
    assert.equal(demote.status, 409);
    assert.equal((await owner.delete(`/api/v1/users/${ws.owner.user_id}`)).status, 409);
    assert.equal((await owner.get('/api/v1/me')).body.data.user.role, 'owner', 'unchanged');
    assert.deepEqual((await owner.put('/api/v1/users/00000000-0000-4000-8000-000000000000', { role: 'member' })).body, { success: false, error: 'User not found' });
    assert.deepEqual((await owner.put('/api/v1/users/not-a-uuid', { role: 'member' })).body, { success: false, error: 'User not found' });
  });

  test('DELETE /users/:user_id ends their sessions and revokes their keys at once', async () => {
    const { ws, owner } = await ownerOf();
    const leaver = await seedUser(t.db, ws.workspace.id, 'manager');
    const session = await setUp(t.app, t.db, ws.workspace.id, leaver.user_id);
    const key = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: leaver.user_id }));
    assert.equal((await session.get('/api/v1/contacts')).status, 200);
    assert.equal((await key.get('/api/v1/contacts')).status, 200);
    assert.deepEqual((await owner.delete(`/api/v1/users/${leaver.user_id}`)).body, { success: true, data: { deleted: true } });
    assert.equal((await session.get('/api/v1/contacts')).status, 401);
    assert.deepEqual((await key.get('/api/v1/contacts')).body, { success: false, error: 'Invalid API key' });
    assert.equal((await owner.delete(`/api/v1/users/${leaver.user_id}`)).status, 404);
  });

  test('an admin manages the team but not owners (403 Forbidden); a second owner can be removed by an owner', async () => {
    const { ws, owner } = await ownerOf();
    const adminUser = await seedUser(t.db, ws.workspace.id, 'admin');
    const admin = await setUp(t.app, t.db, ws.workspace.id, adminUser.user_id);
    const member = await seedUser(t.db, ws.workspace.id, 'member');
    assert.equal((await admin.put(`/api/v1/users/${member.user_id}`, { role: 'manager' })).status, 200);
    const forbidden = { success: false, error: 'Forbidden' };
    assert.deepEqual((await admin.put(`/api/v1/users/${ws.owner.user_id}`, { role: 'member' })).body, forbidden);
    assert.deepEqual((await admin.delete(`/api/v1/users/${ws.owner.user_id}`)).body, forbidden);
    assert.deepEqual((await admin.put(`/api/v1/users/${member.user_id}`, { role: 'owner' })).body, forbidden);
    assert.deepEqual((await admin.post('/api/v1/team/invites', { email: 'o2@example.test', role: 'owner' })).body, forbidden);
    assert.equal((await admin.post('/api/v1/team/invites', { email: 'a2@example.test', role: 'admin' })).status, 201);
    const second = await seedUser(t.db, ws.workspace.id, 'owner');
    assert.equal((await owner.delete(`/api/v1/users/${second.user_id}`)).status, 200);
  });

  test('keys from a session: the token works as a Bearer key, its user is the signed-in person, Revoke stops it', async () => {
    const { ws, owner } = await ownerOf();
    const made = await owner.post('/api/v1/keys', { type: 'general', name: 'From the page' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.data.user_id, ws.owner.user_id);
    const key = client(t.app, made.body.data.token);
    assert.equal((await key.get('/api/v1/contacts')).status, 200);
    assert.equal((await owner.delete(`/api/v1/keys/${made.body.data.id}`)).status, 200);
    assert.equal((await key.get('/api/v1/contacts')).status, 401);
  });

  test('refused: a key (even general), a manager and a member get 403 on team and key operations, and nothing changes', async () => {
    const { ws } = await ownerOf();
    const target = await seedUser(t.db, ws.workspace.id, 'member');
    const sessions: [string, Browser][] = [
      ['manager', await setUp(t.app, t.db, ws.workspace.id, (await seedUser(t.db, ws.workspace.id, 'manager')).user_id)],
      ['member', await setUp(t.app, t.db, ws.workspace.id, (await seedUser(t.db, ws.workspace.id, 'member')).user_id)],
    ];
    const general = client(t.app, ws.token);
    const calls = [
      ['GET', '/api/v1/team/invites', 'team:manage'],
      ['POST', '/api/v1/team/invites', 'team:manage', { email: 'z@example.test', role: 'member' }],
      ['PUT', `/api/v1/users/${target.user_id}`, 'team:manage', { role: 'admin' }],
      ['DELETE', `/api/v1/users/${target.user_id}`, 'team:manage'],
      ['GET', '/api/v1/keys', 'keys:manage'],
      ['POST', '/api/v1/keys', 'keys:manage', { type: 'general' }],
    ] as const;
    for (const [method, url, scope, body] of calls) {
      const viaKey = method === 'GET' ? await general.get(url) : method === 'POST' ? await general.post(url, body) : method === 'PUT' ? await general.put(url, body) : await general.delete(url);
      assert.deepEqual(viaKey.body, refused(scope), `key ${method} ${url}`);
      for (const [role, s] of sessions) {
        const res = method === 'GET' ? await s.get(url) : method === 'POST' ? await s.post(url, body) : method === 'PUT' ? await s.put(url, body) : await s.delete(url);
        assert.deepEqual(res.body, refused(scope), `${role} ${method} ${url}`);
      }
    }
    const still = await t.db.selectFrom('users').select(['role']).where('user_id', '=', target.user_id).executeTakeFirstOrThrow();
    assert.equal(still.role, 'member');
    assert.equal((await t.db.selectFrom('users').select('id').where('email', '=', 'z@example.test').execute()).length, 0);
    // Managers and members keep what the role table gives them.
    assert.equal((await sessions[0][1].put('/api/v1/workspace', { name: 'Nope' })).status, 403);
    assert.equal((await sessions[0][1].get('/api/v1/webhook-deliveries')).status, 403);
    assert.equal((await sessions[0][1].get('/api/v1/custom-fields')).status, 200);
    assert.equal((await sessions[0][1].post('/api/v1/custom-fields', { module_type: 'job', key: 'k', label: 'K', type: 'text' })).status, 403);
    assert.equal((await sessions[1][1].get('/api/v1/messages')).status, 403);
  });
});
