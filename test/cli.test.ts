// The `fieldwork` command line (docs/operator.md "Command line"): the real binary,
// spawned against a real database, plus its pure parts in-process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { InvalidArgumentError } from 'commander';
import type { Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { CliError, type Io, parseId, parseList, parsePair } from '../src/cli/common.ts';
import { messageOf } from '../src/kernel/errors.ts';
import { cell, fields, table } from '../src/cli/format.ts';
import { main } from '../src/cli/index.ts';
import { checkWorkspaceField } from '../src/cli/workspace.ts';
import { loadConfig } from '../src/config.ts';
import type { DB } from '../src/db/schema.ts';
import { createWorkspace, findWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { type CliRun, spawnCli, testDatabase } from './helpers.ts';




/** A --json run that must succeed: its one JSON object. */
async function json(url: string, args: string[]) {
  const r = await spawnCli(url, [...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout.trim().split('\n').length, 1, 'exactly one line of JSON');
  return JSON.parse(r.stdout);
}

/** A run that must fail: non-zero, nothing on stdout, one clean message on stderr. */
function assertFails(r: CliRun, message: RegExp) {
  assert.notEqual(r.code, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

/** The CLI in this process (no spawn): for argument errors caught before any database work. */
async function inProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
  };
  const code = await main(['node', 'fieldwork', ...args], io);
  return { code, stdout, stderr };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SETUP_URL = /^https?:\/\/[^/]+\/app\/setup\/[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

describe('fieldwork CLI: pure parts', () => {
  test('parseId takes positive integers only', () => {
    assert.equal(parseId('42'), 42);
    assert.equal(parseId(' 7 '), 7);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '1e3', '99999999999']) assert.throws(() => parseId(bad), InvalidArgumentError, bad);
  });

  test('parsePair needs KEY=VALUE; the value may be empty or hold "="', () => {
    assert.deepEqual(parsePair('a=1', undefined), { a: '1' });
    assert.deepEqual(parsePair('b=x=y', { a: '1' }), { a: '1', b: 'x=y' });
    assert.deepEqual(parsePair('about=', undefined), { about: '' });
    assert.deepEqual(parsePair('a=2', { a: '1' }), { a: '2' });
    for (const bad of ['novalue', '=x', '']) assert.throws(() => parsePair(bad, undefined), InvalidArgumentError, bad);
  });

  test('parseList splits, trims, drops blanks and repeats', () => {
    assert.deepEqual(parseList('a, b,,c,a'), ['a', 'b', 'c']);
    assert.throws(() => parseList(' , '), InvalidArgumentError);
  });

  test('messageOf: the message, never the stack', () => {
    assert.equal(messageOf(new Error('boom')), 'boom');
    assert.equal(messageOf(Object.assign(new Error(''), { code: 'ECONNREFUSED' })), 'ECONNREFUSED');
    assert.equal(messageOf(new AggregateError([new Error('a'), new Error('b')])), 'a; b');
    assert.equal(messageOf('plain'), 'plain');
  });

  test('checkWorkspaceField rejects a bad country, currency or time zone', () => {
    checkWorkspaceField('timezone', 'Europe/Paris');
    checkWorkspaceField('country', 'us');
    checkWorkspaceField('currency', 'EUR');
    checkWorkspaceField('timezone', ''); // clears
    assert.throws(() => checkWorkspaceField('timezone', 'Mars/Olympus'), CliError);
    assert.throws(() => checkWorkspaceField('country', 'USA'), CliError);
    assert.throws(() => checkWorkspaceField('currency', 'dollars'), CliError);
  });

  test('readable output: aligned fields and tables, "-" for nothing', () => {
    assert.equal(cell(null), '-');
    assert.equal(cell(['read', 'write']), 'read, write');
    assert.equal(cell([]), '-');
    assert.equal(cell({ a: 1 }), '{"a":1}');
    assert.equal(fields({ id: 1, first_name: null }), 'id:         1\nfirst_name: -');
    assert.equal(
      table(
        ['ID', 'TYPE'],
        [
          [1, 'general'],
          [10, null],
        ],
      ),
      'ID  TYPE\n1   general\n10  -',
    );
  });

  test('argument errors: stderr, non-zero, nothing on stdout', async () => {
    const cases: [string[], RegExp][] = [
      [['key', 'list', '--workspace', 'abc', '--json'], /workspace id must be a positive integer/],
      [['key', 'list', '--workspace', '0'], /workspace id must be a positive integer/],
      [['key', 'list', '--json'], /required option '--workspace <id>'/],
      [['key', 'create', '--workspace', '1', '--type', 'secret', '--json'], /Allowed choices are general, rest, embed_forms, automation, plugin/],
      [['key', 'create', '--workspace', '1', '--type', 'rest', '--json'], /a rest key needs --scopes/],
      [['key', 'create', '--workspace', '1', '--type', 'general', '--scopes', ',', '--json'], /needs at least one value/],
      [['key', 'create', '--workspace', '1', '--type', 'general', '--unlinked', '--user', 'u', '--json'], /cannot be used with/],
      [['key', 'revoke', 'x', '--json'], /key id must be a positive integer/],
      [['user', 'add', '--workspace', '1', '--email', 'a@b.c', '--role', 'boss', '--json'], /Allowed choices are owner, admin, manager, member/],
      [['user', 'add', '--workspace', '1', '--email', 'nope', '--json'], /not an email address/],
      [['user', 'set', '--workspace', '1', '--user', 'u', 'first_name', '--json'], /"first_name" is not KEY=VALUE/],
      [['workspace', 'set', '--workspace', '1', '--json'], /missing required argument/],
      [['workspace', 'set', '--workspace', '1', 'timezone=Nowhere/Land', '--json'], /not an IANA time zone/],
      [['workspace', 'create', '--name', 'X', '--json'], /required option '--owner-email <email>'/],
      [['workspace', 'create', '--name', 'X', '--owner-email', 'a@b.c', '--slug', 'Not A Slug', '--json'], /--slug must be/],
      [['workspace', 'create', '--name', 'X', '--owner-email', 'a@b.c', '--bogus'], /unknown option '--bogus'/],
      [['frobnicate'], /unknown command 'frobnicate'/],
    ];
    for (const [args, message] of cases) {
      const r = await inProcess(args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
  });

  test('--help is not an error', async () => {
    const r = await inProcess(['key', 'create', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--type <type>/);
  });
});

describe('fieldwork CLI: the real binary', () => {
  let url: string;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let db: Kysely<DB>;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-cli-'));
  let workspaceId: number;
  let ownerId: string;

  const get = (token: string, route = '/api/v1/workspace') => app.inject({ url: route, headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    const t = await testDatabase();
    url = t.url;
    drop = t.drop;
    db = t.database.db;
    app = await buildApp({ config: loadConfig({ PUBLIC_URL: 'http://fieldwork.test' }), database: t.database, logger: false });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('migrate on a fresh database applies every migration', async () => {
    const [first, readable] = await Promise.all([json(`sqlite:${path.join(tmp, 'fresh.db')}`, ['migrate']), spawnCli(url, ['migrate'])]);
    assert.deepEqual(Object.keys(first), ['migrations']);
    assert.equal(first.migrations[0], '0001-foundation');
    assert.equal(readable.code, 0, readable.stderr);
    assert.equal(readable.stdout, 'Database is up to date.\n');
  });

  test('any command migrates a fresh database first; migrate then has nothing to do', async () => {
    const fresh = `sqlite:${path.join(tmp, 'fresh2.db')}`;
    const out = await json(fresh, ['workspace', 'create', '--name', 'Fresh', '--owner-email', 'f@fresh.test']);
    assert.equal(out.workspace.name, 'Fresh');
    assert.deepEqual(await json(fresh, ['migrate']), { migrations: [] });
  });

  test('workspace create --json: the workspace and its owner', async () => {
    const out = await json(url, [
      'workspace',
      'create',
      '--name',
      'Acme Plumbing',
      '--owner-email',
      'Olive@Acme.test',
      '--owner-first-name',
      'Olive',
      '--owner-last-name',
      'Owner',
      '--country',
      'us',
      '--currency',
      'USD',
      '--timezone',
      'America/Chicago',
      '--industry',
      'Home Services',
    ]);
    assert.deepEqual(Object.keys(out), ['workspace', 'owner']);
    assert.equal(typeof out.workspace.id, 'number');
    assert.deepEqual(out.workspace, {
      id: out.workspace.id,
      name: 'Acme Plumbing',
      slug: 'acme-plumbing',
      industry: 'Home Services',
      industry_key: 'home_services',
      country: 'US',
      currency: 'usd',
      timezone: 'America/Chicago',
      about: null,
      // A64: additive, how customers reach the business.
      address: null,
      phone: null,
      email: null,
      website: null,
      tax_number: null,
    });
    assert.match(out.owner.user_id, UUID);
    assert.deepEqual(out.owner, {
      id: out.owner.id,
      user_id: out.owner.user_id,
      email: 'olive@acme.test',
      first_name: 'Olive',
      last_name: 'Owner',
      role: 'owner',
      setup_url: out.owner.setup_url,
    });
    assert.match(out.owner.setup_url, SETUP_URL); // A1
    workspaceId = out.workspace.id;
    ownerId = out.owner.user_id;
  });

  test('F101: workspace create without --currency takes the country\'s currency, else usd; --currency wins', async () => {
    const create = (name: string, extra: string[]) => json(url, ['workspace', 'create', '--name', name, '--owner-email', `${name.toLowerCase()}@cur.test`, ...extra]);
    const [gb, no, de, ke, none, given] = await Promise.all([
      create('Gb', ['--country', 'gb']),
      create('No', ['--country', 'NO']),
      create('De', ['--country', 'DE']),
      create('Ke', ['--country', 'KE']),
      create('None', []),
      create('Given', ['--country', 'GB', '--currency', 'CAD']),
    ]);
    assert.deepEqual(
      [gb, no, de, ke, none, given].map((o) => o.workspace.currency),
      ['gbp', 'nok', 'eur', 'usd', 'usd', 'cad'],
    );
  });

  test('E10: workspace set reply_to: an email address, checked; empty clears it', async () => {
    const id = String(workspaceId);
    const set = await json(url, ['workspace', 'set', '--workspace', id, 'reply_to=office@acme-plumbing.test']);
    assert.equal(set.settings.reply_to, 'office@acme-plumbing.test');
    const bad = await Promise.all(
      ['not an email', 'a@b', 'Office <office@acme.test>', 'a@b.test, c@d.test', 'a@b.test\r\nBcc: x@y.test'].map((v) =>
        spawnCli(url, ['workspace', 'set', '--workspace', id, `reply_to=${v}`, '--json']),
      ),
    );
    for (const r of bad) assertFails(r, /^error: reply_to must be an email address, e\.g\. office@example\.com/);
    assert.equal(JSON.parse((await findWorkspace(db, workspaceId))!.settings!).reply_to, 'office@acme-plumbing.test', 'a refused set changes nothing');
    const cleared = await json(url, ['workspace', 'set', '--workspace', id, 'reply_to=']);
    assert.equal(cleared.settings.reply_to, undefined);
  });

  test('workspace create without --json: readable, and a taken slug gets a suffix', async () => {
    const r = await spawnCli(url, ['workspace', 'create', '--name', 'Acme Plumbing', '--owner-email', 'b@acme.test']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Workspace\n {2}id: +\d+\n {2}name: +Acme Plumbing\n {2}slug: +acme-plumbing-2\n/);
    assert.match(r.stdout, /\nOwner\n[\s\S]*role: +owner/);
    assert.throws(() => JSON.parse(r.stdout));
  });

  test('workspace set --json: fields and settings; bad values fail and change nothing', async () => {
    const out = await json(url, [
      'workspace',
      'set',
      '--workspace',
      String(workspaceId),
      'about=We fix pipes',
      'week_start=sunday',
      'email_allowance=50',
      'notifications.quote_to_customer.sms=true',
    ]);
    assert.deepEqual(Object.keys(out), ['workspace', 'settings']);
    assert.equal(out.workspace.about, 'We fix pipes');
    assert.deepEqual(Object.keys(out.workspace).sort(), [
      'about',
      'address',
      'country',
      'currency',
      'email',
      'id',
      'industry',
      'industry_key',
      'name',
      'phone',
      'slug',
      'tax_number',
      'timezone',
      'website',
    ]);
    assert.equal(out.settings.week_start, 'sunday');
    assert.equal(out.settings.email_allowance, 50);
    assert.equal(out.settings['notifications.quote_to_customer.sms'], true);
    assert.equal(out.settings.plan, 'standard'); // D29 defaults stay

    const [badValue, badKey] = await Promise.all([
      spawnCli(url, ['workspace', 'set', '--workspace', String(workspaceId), 'about=changed', 'email_allowance=lots', '--json']),
      spawnCli(url, ['workspace', 'set', '--workspace', String(workspaceId), 'colour=blue', '--json']),
    ]);
    assertFails(badValue, /^error: email_allowance must be a whole number\n$/);
    assertFails(badKey, /unknown setting "colour"/);
    const w = await findWorkspace(db, workspaceId);
    assert.equal(w?.about, 'We fix pipes');
  });

  test('workspace set: plan tiers, message templates checked against their placeholders (F49, F50)', async () => {
    const { workspace } = await createWorkspace(db, { name: 'Tiers', owner: { email: 'tiers@acme.test' } });
    const id = String(workspace.id);
    const free = await json(url, ['workspace', 'set', '--workspace', id, 'plan=free', 'templates.quote_to_customer.subject=Quote {{number}} from {{business_name}}']);
    assert.equal(free.settings.plan, 'free');
    assert.equal(free.settings.email_allowance, 100, 'the plan gives the allowance');
    assert.equal(free.settings['templates.quote_to_customer.subject'], 'Quote {{number}} from {{business_name}}');
    const own = await json(url, ['workspace', 'set', '--workspace', id, 'email_allowance=7']);
    assert.equal(own.settings.email_allowance, 7, 'an explicit allowance wins over the plan');

    const [placeholder, part] = await Promise.all([
      spawnCli(url, ['workspace', 'set', '--workspace', id, 'templates.quote_to_customer.text=Hi {{nickname}}', '--json']),
      spawnCli(url, ['workspace', 'set', '--workspace', id, 'templates.quote_to_customer.footer=x', '--json']),
    ]);
    assertFails(placeholder, /unknown placeholder \{\{nickname\}\}/);
    assertFails(part, /templates are templates\.<quote_to_customer\|invoice_to_customer\|appointment_reminder\|hub_link_to_customer\|quote_follow_up\|invoice_reminder>\.<subject\|text\|html\|sms>/);
    const settings = JSON.parse((await findWorkspace(db, workspace.id))!.settings!);
    assert.equal(settings['templates.quote_to_customer.text'], undefined, 'a refused set changes nothing');
  });

  let memberId: string;
  test('user add and user set --json', async () => {
    const added = await json(url, [
      'user',
      'add',
      '--workspace',
      String(workspaceId),
      '--email',
      'Max@Acme.test',
      '--first-name',
      'Max',
      '--role',
      'manager',
      '--job-title',
      'Foreman',
    ]);
    assert.deepEqual(Object.keys(added), ['user']);
    assert.match(added.user.user_id, UUID);
    assert.deepEqual(added.user, {
      id: added.user.id,
      user_id: added.user.user_id,
      email: 'max@acme.test',
      first_name: 'Max',
      last_name: null,
      role: 'manager',
      job_title: 'Foreman',
      setup_url: added.user.setup_url,
    });
    assert.match(added.user.setup_url, SETUP_URL); // A1
    memberId = added.user.user_id;

    const set = await json(url, [
      'user',
      'set',
      '--workspace',
      String(workspaceId),
      '--user',
      memberId,
      'last_name=Power',
      'role=admin',
      'notify.comments_new=false',
    ]);
    assert.deepEqual(Object.keys(set), ['user', 'preferences']);
    const { setup_url: _setupUrl, ...addedUser } = added.user; // only `user add` mints a setup link
    assert.deepEqual(set.user, { ...addedUser, last_name: 'Power', role: 'admin' });
    assert.deepEqual(set.preferences, { comments_new: false });

    assertFails(await spawnCli(url, ['user', 'set', '--workspace', String(workspaceId), '--user', memberId, 'role=boss', '--json']), /role must be one of/);
    // Only SPEC's internal notification names can be preferences.
    assertFails(await spawnCli(url, ['user', 'set', '--workspace', String(workspaceId), '--user', memberId, 'notify.new_request=false', '--json']), /unknown user setting/);
  });

  test('key create --json: the token authenticates as the owner (default user)', async () => {
    const out = await json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'general', '--name', 'zapier']);
    assert.deepEqual(Object.keys(out), ['key']);
    const k = out.key;
    assert.deepEqual(Object.keys(k).sort(), ['id', 'scopes', 'token', 'type', 'user_id', 'workspace_id']);
    assert.equal(k.type, 'general');
    assert.deepEqual(k.scopes, ['read', 'write']);
    assert.equal(k.user_id, ownerId);
    assert.equal(k.workspace_id, workspaceId);
    assert.match(k.token, /^wk_[A-Za-z0-9]{8}\.[0-9a-f]{64}$/);
    const res = await get(k.token);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.id, workspaceId);
  });

  test('key create: --scopes replaces the defaults, --user picks the user, --legacy has no prefix', async () => {
    const [scoped, rest, legacy] = await Promise.all([
      json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'embed_forms', '--scopes', 'workspace:read', '--user', memberId]),
      json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'rest', '--scopes', 'contacts:read,contacts:write']),
      json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'general', '--legacy']),
    ]);
    assert.deepEqual(scoped.key.scopes, ['workspace:read']);
    assert.equal(scoped.key.user_id, memberId);
    assert.equal((await get(scoped.key.token)).statusCode, 200); // embed_forms defaults lack workspace:read
    assert.equal((await get(scoped.key.token, '/api/v1/contacts')).statusCode, 403);

    assert.deepEqual(rest.key.scopes, ['contacts:read', 'contacts:write']);
    assert.equal((await get(rest.key.token, '/api/v1/contacts')).statusCode, 200);
    assert.equal((await get(rest.key.token)).statusCode, 403);

    assert.doesNotMatch(legacy.key.token, /^wk_/);
    assert.match(legacy.key.token, /^[0-9a-f]{64}$/);
    assert.equal((await get(legacy.key.token)).statusCode, 200);
  });

  test('key create --unlinked: the API answers 403', async () => {
    const out = await json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'general', '--unlinked']);
    assert.equal(out.key.user_id, null);
    const res = await get(out.key.token);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { success: false, error: 'API key must be associated with a user. Please recreate the key.' });
  });

  test('key create without --json prints the token once, clearly', async () => {
    const r = await spawnCli(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'automation']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const tokens = r.stdout.match(/wk_[A-Za-z0-9]{8}\.[0-9a-f]{64}/g) ?? [];
    assert.equal(tokens.length, 1);
    assert.match(r.stdout, /shown once/i);
    assert.match(r.stdout, /scopes: +forms:read, forms:write, webhooks:read, webhooks:write/);
    assert.equal((await get(tokens[0], '/api/v1/contacts')).statusCode, 403); // works, lacks the scope
  });

  test('key list: --json shape without tokens, and a readable table', async () => {
    const [out, readable, unknownWs] = await Promise.all([
      json(url, ['key', 'list', '--workspace', String(workspaceId)]),
      spawnCli(url, ['key', 'list', '--workspace', String(workspaceId)]),
      spawnCli(url, ['key', 'list', '--workspace', '999999', '--json']),
    ]);
    assert.deepEqual(Object.keys(out), ['keys']);
    assert.ok(out.keys.length >= 6);
    for (const k of out.keys) {
      assert.deepEqual(Object.keys(k).sort(), ['created_at', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes', 'type', 'user_id']);
      assert.ok(Array.isArray(k.scopes));
      assert.match(k.created_at, ISO);
    }
    const named = out.keys.find((k: { name: string | null }) => k.name === 'zapier');
    assert.deepEqual(
      { type: named.type, scopes: named.scopes, user_id: named.user_id, revoked_at: named.revoked_at },
      { type: 'general', scopes: ['read', 'write'], user_id: ownerId, revoked_at: null },
    );
    assert.doesNotMatch(JSON.stringify(out), /wk_|token/);

    assert.equal(readable.code, 0, readable.stderr);
    const lines = readable.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ID +TYPE +SCOPES +USER +NAME +CREATED +LAST USED +REVOKED$/);
    assert.equal(lines.length, out.keys.length + 1);
    assert.doesNotMatch(readable.stdout, /wk_/);
    assertFails(unknownWs, /workspace 999999 not found/);
  });

  test('key revoke --json: the key then answers 401; an unknown key fails', async () => {
    const { key } = await json(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'general']);
    assert.equal((await get(key.token)).statusCode, 200);
    const [out, unknown] = await Promise.all([json(url, ['key', 'revoke', String(key.id)]), spawnCli(url, ['key', 'revoke', '999999', '--json'])]);
    assert.deepEqual(Object.keys(out), ['key']);
    assert.deepEqual(out.key, { id: key.id, revoked_at: out.key.revoked_at });
    assert.match(out.key.revoked_at, ISO);
    // Another process revoked it: the server's key cache honours that within one second (F54).
    await new Promise((r) => setTimeout(r, 1000));
    const res = await get(key.token);
    assert.equal(res.statusCode, 401); // D2
    assert.deepEqual(res.json(), { success: false, error: 'Invalid API key' });
    assertFails(unknown, /^error: key 999999 not found\n$/);
  });

  test('key create refuses a workspace with no owner rather than making a key the API rejects', async () => {
    const { workspace, owner } = await createWorkspace(db, { name: 'Ownerless', owner: { email: 'gone@ownerless.test' } });
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', owner.id).execute();
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = url; // in-process: same code path, no spawn
    try {
      const r = await inProcess(['key', 'create', '--workspace', String(workspace.id), '--type', 'general', '--json']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `error: workspace ${workspace.id} has no owner: name the key's user\n`);
      const linked = await inProcess(['key', 'create', '--workspace', String(workspace.id), '--type', 'general', '--user', owner.user_id, '--json']);
      assert.equal(linked.code, 0, linked.stderr);
      assert.equal(JSON.parse(linked.stdout).key.user_id, owner.user_id);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
  });

  test('errors from the real binary: bad flags and a non-integer workspace', async () => {
    const [notInt, noScopes] = await Promise.all([
      spawnCli(url, ['key', 'list', '--workspace', '1x', '--json']),
      spawnCli(url, ['key', 'create', '--workspace', String(workspaceId), '--type', 'rest', '--json']),
    ]);
    assertFails(notInt, /^error: option '--workspace <id>' argument '1x' is invalid\. workspace id must be a positive integer\n$/);
    assertFails(noScopes, /^error: a rest key needs --scopes/);
  });
});
