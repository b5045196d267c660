import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, keyFor, seedUser, seedWorkspace, type TestApp } from '../../../test/helpers.ts';
import { main } from '../../cli/index.ts';
import { KeyAuthenticator } from '../../http/auth.ts';
import { SessionAuthenticator } from '../../http/sessions.ts';
import { listInbox } from '../notifications-internal/internal-notifications.ts';
import { insertParent } from '../../../test/upload-fixtures.ts';
import { setUser } from '../users/users.service.ts';
import { setWorkspace } from '../workspace/workspace.service.ts';
import { commentsService } from './comments.service.ts';

type Seeded = Awaited<ReturnType<typeof seedWorkspace>>;
type Member = Awaited<ReturnType<typeof seedUser>>;

describe('comments', () => {
  let t: TestApp;
  let ws: Seeded;
  let owner: Client;
  let contactId: number;
  let quoteId: number;

  before(async () => {
    t = await buildTestApp();
    ws = await seedWorkspace(t.db);
    owner = client(t.app, ws.token);
    contactId = (await owner.post('/api/v1/contacts', { first_name: 'Cy', last_name: 'Comment' })).body.data.id;
    quoteId = await insertParent(t.db, ws.workspace.id, 'quote', ws.owner.user_id);
  });
  after(() => t.close());

  const post = (api: Client, body: Record<string, unknown>) => api.post('/api/v1/comments', body);
  const onQuote = (extra: Record<string, unknown> = {}) => ({ module_type: 'quote', module_id: quoteId, comment: 'Looks good', ...extra });

  test('POST: 201, author is the key user, with profiles', async () => {
    const res = await post(owner, onQuote());
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const c = res.body.data;
    assert.ok(Number.isInteger(c.id));
    assert.equal(c.workspace_id, ws.workspace.id);
    assert.equal(c.related_type, 'quote');
    assert.equal(c.related_id, quoteId);
    assert.equal(c.comment, 'Looks good');
    assert.equal(c.author_id, ws.owner.user_id);
    assert.equal(c.reply_to, null);
    assert.equal(c.status, 'active');
    assert.equal(c.modified_at, null);
    assert.match(c.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(c.mentioned_user_ids, []);
    assert.deepEqual(c.profiles, { id: ws.owner.user_id, first_name: 'Olive', last_name: 'Owner', email: ws.owner.email });
  });

  test('the author is whoever owns the key', async () => {
    const member = await seedUser(t.db, ws.workspace.id);
    const api = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: member.user_id }));
    const res = await post(api, onQuote());
    assert.equal(res.body.data.author_id, member.user_id);
    assert.equal(res.body.data.profiles.email, member.email);
  });

  test('SPEC Limits: 1 to 10,000 characters (counted as characters, not UTF-16 units)', async () => {
    for (const comment of ['', 'x'.repeat(10_001), 12]) {
      const res = await post(owner, onQuote({ comment }));
      assert.equal(res.status, 400, String(comment).slice(0, 10));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['comment']);
    }
    assert.equal((await post(owner, onQuote({ comment: 'x'.repeat(10_000) }))).status, 201);
    assert.equal((await post(owner, onQuote({ comment: '😀'.repeat(10_000) }))).status, 201);
    assert.equal((await post(owner, onQuote({ comment: 'x' }))).status, 201);
    const missing = await post(owner, { module_type: 'quote', module_id: quoteId });
    assert.deepEqual(missing.body.details[0].path, ['comment']);
  });

  test('D11: mentioned_user_ids: at most 50, UUIDs, members of this workspace', async () => {
    const outsider = await seedWorkspace(t.db);
    const member = await seedUser(t.db, ws.workspace.id);
    const tooMany = Array.from({ length: 51 }, () => member.user_id);
    for (const [ids, path] of [
      [tooMany, ['mentioned_user_ids']],
      [['not-a-uuid'], ['mentioned_user_ids', 0]],
      [
        [member.user_id, outsider.owner.user_id],
        ['mentioned_user_ids', 1],
      ],
      [['00000000-0000-4000-8000-000000000000'], ['mentioned_user_ids', 0]],
    ] as [string[], (string | number)[]][]) {
      const res = await post(owner, onQuote({ mentioned_user_ids: ids }));
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, path, JSON.stringify(res.body.details));
    }
    const ok = await post(owner, onQuote({ mentioned_user_ids: [member.user_id, member.user_id] }));
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.data.mentioned_user_ids, [member.user_id]);
  });

  test('D11: reply_to must be an active comment on the same parent', async () => {
    const first = (await post(owner, onQuote())).body.data;
    const reply = await post(owner, onQuote({ reply_to: first.id, comment: 'reply' }));
    assert.equal(reply.status, 201);
    assert.equal(reply.body.data.reply_to, first.id);
    const onContact = (await post(owner, { module_type: 'contact', module_id: contactId, comment: 'elsewhere' })).body.data;
    const otherQuote = await insertParent(t.db, ws.workspace.id, 'quote', null);
    const onOtherQuote = (await post(owner, { module_type: 'quote', module_id: otherQuote, comment: 'other quote' })).body.data;
    const trashed = (await post(owner, onQuote())).body.data;
    await owner.delete(`/api/v1/comments/${trashed.id}`);
    const foreign = await seedWorkspace(t.db);
    const foreignQuote = await insertParent(t.db, foreign.workspace.id, 'quote', null);
    const theirs = (await post(client(t.app, foreign.token), { module_type: 'quote', module_id: foreignQuote, comment: 'theirs' })).body.data;
    const before = (await owner.get(`/api/v1/comments?module_type=quote&module_id=${quoteId}&per_page=100`)).body.data.length;
    for (const replyTo of [onContact.id, onOtherQuote.id, trashed.id, theirs.id, 999_999]) {
      const res = await post(owner, onQuote({ reply_to: replyTo }));
      assert.equal(res.status, 400, String(replyTo));
      assert.equal(res.body.error, 'Invalid request');
      assert.deepEqual(res.body.details[0].path, ['reply_to']);
    }
    assert.equal((await owner.get(`/api/v1/comments?module_type=quote&module_id=${quoteId}&per_page=100`)).body.data.length, before, 'nothing stored');
  });

  test('D32: a parent outside the workspace is 404 with its own text', async () => {
    const foreign = await seedWorkspace(t.db);
    const theirContact = (await client(t.app, foreign.token).post('/api/v1/contacts', { first_name: 'T', last_name: 'Heirs' })).body.data.id;
    for (const [body, text] of [
      [{ module_type: 'contact', module_id: theirContact, comment: 'x' }, 'Contact not found'],
      [{ module_type: 'quote', module_id: 999_999, comment: 'x' }, 'Quote not found'],
      [{ module_type: 'job', module_id: 999_999, comment: 'x' }, 'Job not found'],
      [{ module_type: 'request', module_id: 999_999, comment: 'x' }, 'Request not found'],
      [{ module_type: 'event', module_id: 999_999, comment: 'x' }, 'Event not found'],
      [{ module_type: 'timesheet', module_id: 999_999, comment: 'x' }, 'Timesheet not found'],
    ] as [Record<string, unknown>, string][]) {
      const res = await post(owner, body);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: text });
    }
    const list = await owner.get(`/api/v1/comments?module_type=contact&module_id=${theirContact}`);
    assert.equal(list.status, 404);
    assert.equal(list.body.error, 'Contact not found');
    const bad = await post(owner, { module_type: 'planet', module_id: 1, comment: 'x' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details[0].path, ['module_type']);
  });

  test('every module type takes comments, events and timesheets included', async () => {
    for (const type of ['request', 'job', 'invoice', 'event', 'timesheet'] as const) {
      const id = await insertParent(t.db, ws.workspace.id, type, ws.owner.user_id);
      const res = await post(owner, { module_type: type, module_id: id, comment: `on a ${type}` });
      assert.equal(res.status, 201, type);
      const list = await owner.get(`/api/v1/comments?module_type=${type}&module_id=${id}`);
      assert.deepEqual(
        list.body.data.map((c: { id: number }) => c.id),
        [res.body.data.id],
      );
    }
  });

  describe('list', () => {
    let listQuote: number;
    let ids: number[];
    let member: Member;
    before(async () => {
      listQuote = await insertParent(t.db, ws.workspace.id, 'quote', null);
      member = await seedUser(t.db, ws.workspace.id);
      const memberApi = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: member.user_id }));
      ids = [];
      for (const [api, text] of [
        [owner, 'one'],
        [memberApi, 'two'],
        [owner, 'three'],
        [memberApi, 'four'],
      ] as [Client, string][]) {
        ids.push((await post(api, { module_type: 'quote', module_id: listQuote, comment: text })).body.data.id);
      }
      await owner.delete(`/api/v1/comments/${ids[2]}`);
    });

    test('active only, newest first, paginated, each with its author profile', async () => {
      const res = await owner.get(`/api/v1/comments?module_type=quote&module_id=${listQuote}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.data.map((c: { id: number }) => c.id),
        [ids[3], ids[1], ids[0]],
      );
      assert.deepEqual(res.body.pagination, { page: 1, per_page: 25, total_pages: 1 });
      assert.deepEqual(res.body.data[0].profiles, { id: member.user_id, first_name: member.first_name, last_name: member.last_name, email: member.email });
      assert.equal(res.body.data[2].profiles.id, ws.owner.user_id);
      const p2 = await owner.get(`/api/v1/comments?module_type=quote&module_id=${listQuote}&per_page=2&page=2`);
      assert.deepEqual(
        p2.body.data.map((c: { id: number }) => c.id),
        [ids[0]],
      );
      assert.deepEqual(p2.body.pagination, { page: 2, per_page: 2, total_pages: 2 });
    });

    test('module_type and module_id are required; bad parameters are 400 Invalid request', async () => {
      for (const q of [
        'module_type=quote',
        `module_id=${listQuote}`,
        `module_type=quote&module_id=${listQuote}&per_page=101`,
        `module_type=x&module_id=${listQuote}`,
      ]) {
        const res = await owner.get(`/api/v1/comments?${q}`);
        assert.equal(res.status, 400, q);
        assert.equal(res.body.error, 'Invalid request');
      }
    });
  });

  test('profiles cost one query per page, whatever the number of comments and authors', async () => {
    let queries = 0;
    const counting = t.db.withPlugin({
      transformQuery: (args) => {
        queries++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const authenticator = new KeyAuthenticator(t.db);
    const sessions = new SessionAuthenticator(t.db, { idleMs: t.config.sessionIdle, ttlMs: t.config.sessionTtl, secure: false });
    const service = commentsService({ db: counting, dialect: t.database.dialect, config: t.config, authenticator, sessions });
    const auth = await authenticator.fromToken(ws.token);
    const countList = async (moduleId: number) => {
      queries = 0;
      const page = await service.list(auth, { module_type: 'quote', module_id: moduleId });
      return { queries, rows: page.rows.length };
    };
    const small = await insertParent(t.db, ws.workspace.id, 'quote', null);
    await post(owner, { module_type: 'quote', module_id: small, comment: 'only' });
    const big = await insertParent(t.db, ws.workspace.id, 'quote', null);
    for (let i = 0; i < 3; i++) {
      const member = await seedUser(t.db, ws.workspace.id);
      const api = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: member.user_id }));
      for (let j = 0; j < 3; j++) await post(api, { module_type: 'quote', module_id: big, comment: `c${i}${j}` });
    }
    const one = await countList(small);
    const nine = await countList(big);
    assert.deepEqual([one.rows, nine.rows], [1, 9]);
    assert.equal(nine.queries, one.queries);
    assert.ok(one.queries <= 3, `${one.queries} queries: parent, page, profiles`);
  });

  test('GET one; DELETE is soft (status trash), then Comment not found', async () => {
    const c = (await post(owner, onQuote({ comment: 'to be trashed' }))).body.data;
    assert.deepEqual((await owner.get(`/api/v1/comments/${c.id}`)).body.data, c);
    assert.deepEqual((await owner.delete(`/api/v1/comments/${c.id}`)).body, { success: true, data: { deleted: true } });
    for (const res of [
      await owner.get(`/api/v1/comments/${c.id}`),
      await owner.delete(`/api/v1/comments/${c.id}`),
      await owner.get('/api/v1/comments/abc'),
      await owner.get('/api/v1/comments/999999'),
    ]) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Comment not found' });
    }
    const row = await t.db.selectFrom('comments').select(['status', 'comment']).where('id', '=', c.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'trash', comment: 'to be trashed' }, 'still stored');
  });

  test('another workspace’s comments behave as absent', async () => {
    const c = (await post(owner, onQuote())).body.data;
    const other = client(t.app, (await seedWorkspace(t.db)).token);
    for (const res of [await other.get(`/api/v1/comments/${c.id}`), await other.delete(`/api/v1/comments/${c.id}`)]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error, 'Comment not found');
    }
    assert.equal((await owner.get(`/api/v1/comments/${c.id}`)).status, 200);
  });

  test('SPEC Comments: the parent scope on every route, worded "Missing required scope"', async () => {
    const c = (await post(owner, onQuote())).body.data;
    const contactsOnly = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['contacts:read', 'contacts:write']));
    const quotesRead = client(t.app, await keyFor(t.db, ws.workspace.id, 'rest', ['quotes:read']));
    for (const [res, scope] of [
      [await post(contactsOnly, onQuote()), 'quotes:write'],
      [await post(quotesRead, onQuote()), 'quotes:write'],
      [await contactsOnly.get(`/api/v1/comments?module_type=quote&module_id=${quoteId}`), 'quotes:read'],
      [await contactsOnly.get(`/api/v1/comments/${c.id}`), 'quotes:read'],
      [await quotesRead.delete(`/api/v1/comments/${c.id}`), 'quotes:write'],
      [await quotesRead.get(`/api/v1/comments?module_type=contact&module_id=${contactId}`), 'contacts:read'],
    ] as [{ status: number; body: { error: string } }, string][]) {
      assert.equal(res.status, 403, scope);
      assert.equal(res.body.error, `Missing required scope: ${scope}`);
    }
    assert.equal((await quotesRead.get(`/api/v1/comments/${c.id}`)).status, 200);
    assert.equal((await post(contactsOnly, { module_type: 'contact', module_id: contactId, comment: 'ok' })).status, 201);
  });

  test('OpenAPI: every comment route', async () => {
    const doc = (await t.app.inject('/api/v1/openapi.json')).json();
    assert.ok(doc.paths['/api/v1/comments'].post.requestBody.content['application/json']);
    assert.ok(doc.paths['/api/v1/comments'].get);
    for (const m of ['get', 'delete']) assert.ok(doc.paths['/api/v1/comments/{id}'][m], m);
  });

  describe('internal notifications (SPEC "Internal notifications", D22)', () => {
    // creator: created the quote; poster: writes the comments; a and b: teammates.
    let creator: Member;
    let a: Member;
    let b: Member;
    let poster: Client;
    let aApi: Client;
    let quote: number;

    before(async () => {
      creator = await seedUser(t.db, ws.workspace.id);
      a = await seedUser(t.db, ws.workspace.id);
      b = await seedUser(t.db, ws.workspace.id);
      poster = owner;
      aApi = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: a.user_id }));
    });

    /** A fresh quote by `creator`, so each test counts only its own notifications. */
    const freshQuote = async (type: 'quote' | 'job' | 'invoice' | 'request' = 'quote') => {
      quote = await insertParent(t.db, ws.workspace.id, type, creator.user_id);
      return quote;
    };
    const inboxOf = async (user: { user_id: string }, moduleId = quote) =>
      (await listInbox(t.db, ws.workspace.id, user.user_id)).filter((n) => n.module_id === moduleId).map((n) => n.name);

    test('comments_new goes to the parent creator; the author gets nothing', async () => {
      for (const type of ['quote', 'job', 'invoice', 'request'] as const) {
        const id = await freshQuote(type);
        const c = (await post(poster, { module_type: type, module_id: id, comment: 'new here' })).body.data;
        const items = (await listInbox(t.db, ws.workspace.id, creator.user_id)).filter((n) => n.module_id === id && n.module_type === type);
        assert.equal(items.length, 1, type);
        assert.equal(items[0].name, 'comments_new');
        assert.deepEqual(items[0].data, { comment_id: c.id, author_id: ws.owner.user_id, reply_to: null, excerpt: 'new here' });
        assert.equal(items[0].read_at, null);
        assert.deepEqual(await inboxOf(ws.owner, id), [], 'never the author');
      }
      // The creator commenting on their own quote is told nothing.
      await freshQuote();
      const creatorApi = client(t.app, await keyFor(t.db, ws.workspace.id, 'general', undefined, { userId: creator.user_id }));
      await post(creatorApi, onQuote({ module_id: quote }));
      assert.deepEqual(await inboxOf(creator), []);
    });

    test('comments_mention to each mentioned user except the author; a mentioned creator gets only the mention', async () => {
      await freshQuote();
      await post(poster, onQuote({ module_id: quote, mentioned_user_ids: [a.user_id, b.user_id, creator.user_id, ws.owner.user_id] }));
      assert.deepEqual(await inboxOf(a), ['comments_mention']);
      assert.deepEqual(await inboxOf(b), ['comments_mention']);
      assert.deepEqual(await inboxOf(creator), ['comments_mention'], 'not also comments_new');
      assert.deepEqual(await inboxOf(ws.owner), [], 'the author mentioning themself');
    });

    test('comments_reply to the author of the comment replied to; mentioned users get only the mention', async () => {
      await freshQuote();
      const first = (await post(aApi, onQuote({ module_id: quote, comment: 'first' }))).body.data;
      assert.deepEqual(await inboxOf(creator), ['comments_new']);
      await post(poster, onQuote({ module_id: quote, reply_to: first.id }));
      assert.deepEqual(await inboxOf(a), ['comments_reply']);
      assert.deepEqual(await inboxOf(creator), ['comments_new', 'comments_new']);
      await post(poster, onQuote({ module_id: quote, reply_to: first.id, mentioned_user_ids: [a.user_id] }));
      assert.deepEqual(await inboxOf(a), ['comments_mention', 'comments_reply'], 'newest first, and no second reply notification');
      // Replying to one's own comment notifies nobody of a reply.
      await post(aApi, onQuote({ module_id: quote, reply_to: first.id }));
      assert.deepEqual(await inboxOf(a), ['comments_mention', 'comments_reply']);
    });

    test('comments on contacts, events and timesheets notify nobody', async () => {
      const targets: [string, number][] = [
        ['contact', contactId],
        ['event', await insertParent(t.db, ws.workspace.id, 'event', creator.user_id)],
        ['timesheet', await insertParent(t.db, ws.workspace.id, 'timesheet', creator.user_id)],
      ];
      for (const [type, id] of targets) {
        const first = (await post(aApi, { module_type: type, module_id: id, comment: 'first' })).body.data;
        const res = await post(poster, {
          module_type: type,
          module_id: id,
          comment: 'x',
          reply_to: first.id,
          mentioned_user_ids: [a.user_id, b.user_id, creator.user_id],
        });
        assert.equal(res.status, 201);
        for (const user of [a, b, creator]) {
          const items = (await listInbox(t.db, ws.workspace.id, user.user_id)).filter((n) => n.module_type === type && n.module_id === id);
          assert.deepEqual(items, [], `${type}`);
        }
      }
    });

    test('workspace setting internal.<name>=false turns a notification off for everyone', async () => {
      await setWorkspace(t.db, ws.workspace.id, { 'internal.comments_mention': 'false' });
      try {
        await freshQuote();
        await post(poster, onQuote({ module_id: quote, mentioned_user_ids: [a.user_id, creator.user_id] }));
        assert.deepEqual(await inboxOf(a), []);
        // The creator was not notified by mention, so the new-comment notice still reaches them.
        assert.deepEqual(await inboxOf(creator), ['comments_new']);
      } finally {
        await setWorkspace(t.db, ws.workspace.id, { 'internal.comments_mention': 'true' });
      }
      await freshQuote();
      await post(poster, onQuote({ module_id: quote, mentioned_user_ids: [a.user_id] }));
      assert.deepEqual(await inboxOf(a), ['comments_mention'], 'back on');
    });

    test('user preference notify.<name>=false turns it off for that user only', async () => {
      await setUser(t.db, ws.workspace.id, creator.user_id, { 'notify.comments_new': 'false' });
      await setUser(t.db, ws.workspace.id, a.user_id, { 'notify.comments_mention': 'false' });
      try {
        await freshQuote();
        await post(poster, onQuote({ module_id: quote, mentioned_user_ids: [a.user_id, b.user_id] }));
        assert.deepEqual(await inboxOf(creator), []);
        assert.deepEqual(await inboxOf(a), []);
        assert.deepEqual(await inboxOf(b), ['comments_mention']);
      } finally {
        await setUser(t.db, ws.workspace.id, creator.user_id, { 'notify.comments_new': 'true' });
        await setUser(t.db, ws.workspace.id, a.user_id, { 'notify.comments_mention': 'true' });
      }
    });

    test('a rejected comment notifies nobody', async () => {
      await freshQuote();
      const res = await post(poster, onQuote({ module_id: quote, mentioned_user_ids: [a.user_id], reply_to: 999_999 }));
      assert.equal(res.status, 400);
      assert.deepEqual(await inboxOf(a), []);
      assert.deepEqual(await inboxOf(creator), []);
    });

    test('fieldwork inbox --json: newest first, --unread, --mark-read', async () => {
      const user = await seedUser(t.db, ws.workspace.id);
      await freshQuote();
      await post(poster, onQuote({ module_id: quote, comment: 'one', mentioned_user_ids: [user.user_id] }));
      await post(poster, onQuote({ module_id: quote, comment: 'two', mentioned_user_ids: [user.user_id] }));
      const runAs = async (userId: string, ...args: string[]) => {
        let out = '';
        let err = '';
        const previous = process.env.DATABASE_URL;
        process.env.DATABASE_URL = t.url;
        try {
          const code = await main(['node', 'fieldwork', 'inbox', '--workspace', String(ws.workspace.id), '--user', userId, ...args], {
            out: (s) => {
              out += s;
            },
            err: (s) => {
              err += s;
            },
          });
          return { code, out, err };
        } finally {
          if (previous === undefined) delete process.env.DATABASE_URL;
          else process.env.DATABASE_URL = previous;
        }
      };
      const run = (...args: string[]) => runAs(user.user_id, ...args);
      const all = await run('--json');
      assert.equal(all.code, 0, all.err);
      assert.equal(all.out.trim().split('\n').length, 1, 'one JSON object');
      const { notifications } = JSON.parse(all.out);
      assert.deepEqual(Object.keys(notifications[0]).sort(), ['created_at', 'data', 'id', 'module_id', 'module_type', 'name', 'read_at']);
      assert.deepEqual(
        notifications.map((n: { data: { excerpt: string } }) => n.data.excerpt),
        ['two', 'one'],
      );
      assert.equal(notifications[0].name, 'comments_mention');
      assert.equal(notifications[0].module_type, 'quote');
      assert.equal(notifications[0].module_id, quote);
      assert.ok(notifications[0].id > notifications[1].id);
      assert.equal((await run('--unread', '--mark-read', '--json')).code, 0);
      const after = JSON.parse((await run('--json')).out).notifications;
      assert.ok(after.every((n: { read_at: string | null }) => n.read_at !== null));
      assert.deepEqual(JSON.parse((await run('--unread', '--json')).out), { notifications: [] });
      const text = await run();
      assert.match(text.out, /comments_mention/);
      const stranger = await runAs('00000000-0000-4000-8000-000000000000', '--json');
      assert.notEqual(stranger.code, 0);
      assert.equal(stranger.out, '');
      assert.match(stranger.err, /not a member/);
    });
  });
});
