import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { pruneOld } from '../src/outbox/retention.ts';
import { Worker } from '../src/outbox/worker.ts';
import { buildTestApp, seedWorkspace, type TestApp } from './helpers.ts';

// RETENTION (docs/operations.md "Retention"): finished rows older than the period
// are pruned by the worker's daily pass, in batches; pending work and everything
// younger stays.

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('retention pruning', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /** One outbox event with one delivery (and one attempt per delivery) of the given state and age. */
  async function seed(workspaceId: number, subscriptionId: number, status: 'pending' | 'delivered' | 'failed', ageMs: number, nowMs: number) {
    const at = iso(nowMs - ageMs);
    const outbox = await t.db
      .insertInto('outbox')
      .values({ workspace_id: workspaceId, event: 'contact.created', payload: '{}', created_at: at, processed_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    const delivery = await t.db
      .insertInto('webhook_deliveries')
      .values({
        workspace_id: workspaceId,
        subscription_id: subscriptionId,
        outbox_id: outbox.id,
        event: 'contact.created',
        webhook_id: randomUUID(),
        status,
        attempts: 1,
        max_attempts: 5,
        next_attempt_at: status === 'pending' ? at : null,
        created_at: at,
        updated_at: at,
        delivered_at: status === 'delivered' ? at : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('webhook_attempts')
      .values({ workspace_id: workspaceId, delivery_id: delivery.id, attempt: 1, status_code: 200, error: null, duration_ms: 5, worker: 'w', created_at: at })
      .execute();
    return { outbox: outbox.id, delivery: delivery.id };
  }

  async function message(workspaceId: number, status: string, ageMs: number, nowMs: number) {
    const at = iso(nowMs - ageMs);
    const row = await t.db
      .insertInto('messages')
      .values({
        workspace_id: workspaceId,
        channel: 'email',
        type: 'quote_to_customer',
        module_type: 'quote',
        module_id: 1,
        recipient: 'c@example.test',
        body_text: 'hi',
        attempts: 1,
        status,
        message_id: `<${randomUUID()}@test>`,
        next_attempt_at: status === 'queued' ? at : null,
        created_at: at,
        updated_at: at,
        sent_at: status === 'sent' ? at : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  test('the worker pass prunes old finished rows in batches and keeps pending and young ones', async () => {
    const nowMs = Date.now();
    const ws = await seedWorkspace(t.db);
    const sub = await t.db
      .insertInto('webhook_subscriptions')
      .values({ workspace_id: ws.workspace.id, trigger_event: 'contact.created', webhook_url: 'http://127.0.0.1:9/x', secret: 's', is_active: 1, created_at: iso(nowMs) })
      .returning('id')
      .executeTakeFirstOrThrow();
    const oldDelivered = [];
    for (let i = 0; i < 7; i++) oldDelivered.push(await seed(ws.workspace.id, sub.id, 'delivered', 40 * DAY, nowMs));
    const oldPending = await seed(ws.workspace.id, sub.id, 'pending', 40 * DAY, nowMs);
    const oldFailed = await seed(ws.workspace.id, sub.id, 'failed', 40 * DAY, nowMs);
    const young = await seed(ws.workspace.id, sub.id, 'delivered', 2 * DAY, nowMs);
    await message(ws.workspace.id, 'sent', 40 * DAY, nowMs);
    await message(ws.workspace.id, 'failed', 40 * DAY, nowMs);
    const oldQueued = await message(ws.workspace.id, 'queued', 40 * DAY, nowMs);
    const youngSent = await message(ws.workspace.id, 'sent', 2 * DAY, nowMs);

    // Idempotency records (E11): 4 expired 40 days ago, 1 expiring tomorrow.
    const keyId = (await t.db.selectFrom('api_keys').select('id').where('workspace_id', '=', ws.workspace.id).executeTakeFirstOrThrow()).id;
    for (const [i, expires] of [40, 40, 40, 40, -1].entries()) {
      const at = iso(nowMs - expires * DAY);
      await t.db
        .insertInto('idempotency_keys')
        .values({ workspace_id: ws.workspace.id, key_id: keyId, idem_key: `k${i}`, method: 'POST', path: '/api/v1/contacts', body_hash: 'h', state: 'done', status: 201, response: '{}', locked_by: 'x', locked_until: at, created_at: at, expires_at: at })
        .execute();
    }

    // Deletion entries (E13) are kept 90 days: 4 made 100 days ago go, one made 89 days ago stays.
    for (const [i, age] of [100, 100, 100, 100, 89].entries()) {
      await t.db
        .insertInto('deletions')
        .values({ workspace_id: ws.workspace.id, resource: 'contacts', resource_id: 1000 + i, scope: 'contacts:read', deleted_at: iso(nowMs - age * DAY) })
        .execute();
    }

    // Hub links (E7): 2 expired 40 days ago go; one expired yesterday and a live one stay.
    const person = await t.db.insertInto('contacts').values({ workspace_id: ws.workspace.id, first_name: 'Hub', last_name: 'Link', type: 'lead', created_at: iso(nowMs), updated_at: iso(nowMs) }).returning('id').executeTakeFirstOrThrow();
    for (const [i, expired] of [40, 40, 1, -30].entries()) {
      await t.db
        .insertInto('hub_links')
        .values({ workspace_id: ws.workspace.id, contact_id: person.id, token_hash: `hash-${ws.workspace.id}-${i}`, expires_at: iso(nowMs - expired * DAY), created_at: iso(nowMs - 60 * DAY) })
        .execute();
    }

    // A1: sessions and setup/reset links that expired 40 days ago go; ones expired yesterday stay.
    const account = await t.db.insertInto('accounts').values({ email: ws.owner.email, password_hash: null, created_at: iso(nowMs), updated_at: iso(nowMs) }).returning('id').executeTakeFirstOrThrow();
    for (const [i, expired] of [40, 1].entries()) {
      const at = iso(nowMs - expired * DAY);
      await t.db.insertInto('sessions').values({ token_hash: `s-${ws.workspace.id}-${i}`, account_id: account.id, user_id: ws.owner.id, created_at: at, last_seen_at: at, expires_at: at }).execute();
      await t.db.insertInto('auth_links').values({ workspace_id: ws.workspace.id, user_id: ws.owner.id, kind: 'setup', token_hash: `l-${ws.workspace.id}-${i}`, expires_at: at, used_at: null, created_at: at }).execute();
    }

    // Batches of 3: several statements, each a bounded DELETE.
    t.queries.length = 0;
    const counts = await pruneOld(t.db, t.database.dialect, nowMs - 30 * DAY, { batch: 3, pauseMs: 0 });
    assert.deepEqual(counts, { webhook_deliveries: 7, messages: 2, outbox: 7, idempotency_keys: 4, deletions: 4, hub_links: 2, sessions: 1, auth_links: 1 });
    assert.deepEqual((await t.db.selectFrom('sessions').select('token_hash').execute()).map((s) => s.token_hash), [`s-${ws.workspace.id}-1`]);
    assert.deepEqual((await t.db.selectFrom('auth_links').select('token_hash').where('workspace_id', '=', ws.workspace.id).execute()).map((s) => s.token_hash), [`l-${ws.workspace.id}-1`]);
    const links = await t.db.selectFrom('hub_links').select('token_hash').where('workspace_id', '=', ws.workspace.id).orderBy('id').execute();
    assert.deepEqual(links.map((l) => l.token_hash), [`hash-${ws.workspace.id}-2`, `hash-${ws.workspace.id}-3`], 'links expired within the period stay');
    const kept = await t.db.selectFrom('deletions').select('resource_id').where('workspace_id', '=', ws.workspace.id).execute();
    assert.deepEqual(kept.map((k) => k.resource_id), [1004], 'a deletion entry younger than 90 days stays');
    const keys = await t.db.selectFrom('idempotency_keys').select('idem_key').where('workspace_id', '=', ws.workspace.id).execute();
    assert.deepEqual(keys.map((k) => k.idem_key), ['k4'], 'the unexpired idempotency record stays');
    const deletes = t.queries.filter((q) => /^\s*delete/i.test(q));
    assert.ok(deletes.length >= 3 + 1 + 3, deletes.join('\n'));
    assert.ok(deletes.every((q) => /limit/i.test(q)), 'every delete is bounded');

    const ids = async (table: 'webhook_deliveries' | 'outbox' | 'messages') =>
      (await t.db.selectFrom(table).select('id').where('workspace_id', '=', ws.workspace.id).orderBy('id').execute()).map((r) => r.id);
    assert.deepEqual(await ids('webhook_deliveries'), [oldPending.delivery, oldFailed.delivery, young.delivery]);
    assert.deepEqual(await ids('outbox'), [oldPending.outbox, oldFailed.outbox, young.outbox]);
    assert.deepEqual(await ids('messages'), [oldQueued, youngSent]);
    // The attempts of pruned deliveries went with them.
    const attempts = await t.db.selectFrom('webhook_attempts').select('delivery_id').where('workspace_id', '=', ws.workspace.id).orderBy('delivery_id').execute();
    assert.deepEqual(
      attempts.map((a) => a.delivery_id),
      [oldPending.delivery, oldFailed.delivery, young.delivery],
    );
    for (const d of oldDelivered) assert.ok(!(await ids('webhook_deliveries')).includes(d.delivery));

    // Through the worker, with RETENTION=1d: the 2-day-old rows go too, pending still stays.
    const config = loadConfig({ RETENTION: '1d' });
    const worker = new Worker({ db: t.db, dialect: t.database.dialect, config, retentionMs: config.retention });
    await worker.prune(nowMs);
    assert.deepEqual(await ids('webhook_deliveries'), [oldPending.delivery, oldFailed.delivery]);
    assert.deepEqual(await ids('messages'), [oldQueued]);
  });

  test('RETENTION is a duration; the default is 30 days', () => {
    assert.equal(loadConfig({}).retention, 30 * DAY);
    assert.equal(loadConfig({ RETENTION: '12h' }).retention, 12 * 3_600_000);
    assert.throws(() => loadConfig({ RETENTION: 'forever' }), /RETENTION: "forever" is not a duration/);
  });
});
