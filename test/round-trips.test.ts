// Round trips per request (statements run, begin/commit included), on the
// database under test. Reads are one statement per record; writes answer from
// what they wrote. PostgreSQL caches authentication after the first request of a
// key (once its key-change listener is up); SQLite reads the key once per
// request: `statementsOf` counts that lookup apart, so the budgets are the same on both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedUser, seedWorkspace, type TestApp } from './helpers.ts';
import { call, setUp, signIn } from './session-client.ts';
import { updateJobRow } from '../src/modules/jobs/jobs.repo.ts';
import { setQuoteStatus } from '../src/modules/quotes/quotes.service.ts';

const isAuth = (q: string) => /"api_keys"/.test(q);
/** The file sweeper's own polling (src/storage/sweeper.ts) runs beside requests, not in them; a request only inserts into file_deletions. */
const isSweeper = (q: string) => /^(select .* from|delete from) "file_deletions"/i.test(q);

/**
 * The statements one request (`fn`) runs, without authentication's: at most
 * one key lookup per request is allowed on either database (asserted here).
 */
async function statementsOf(t: TestApp, fn: () => Promise<unknown>): Promise<string[]> {
  t.queries.length = 0;
  await fn();
  const auth = t.queries.filter(isAuth);
  assert.ok(auth.length <= 1, `authentication ran ${auth.length} statements:\n${auth.join('\n')}`);
  return t.queries.filter((q) => !isAuth(q) && !isSweeper(q));
}

/** Asserts a budget, printing the statements when it is exceeded. */
function within(statements: string[], budget: number, what: string) {
  if (process.env.SHOW_STATEMENTS) console.log(`${what}: ${statements.length}\n  ${statements.join("\n  ")}`);
  assert.ok(statements.length <= budget, `${what}: ${statements.length} statements, budget ${budget}:\n${statements.join('\n')}`);
}

let t: TestApp;
let api: Client;
let contactId: number;
let userId: string;
before(async () => {
  t = await buildTestApp();
  const ws = await seedWorkspace(t.db);
  api = client(t.app, ws.token);
  userId = (await seedUser(t.db, ws.workspace.id)).user_id;
  contactId = (await api.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace' })).body.data.id;
  await api.get('/api/v1/quotes'); // warms the PostgreSQL authentication cache
});
after(() => t.close());

/** A write's answer is built from what it wrote: it must equal the single GET that follows. */
async function answersLikeGet(path: string, data: unknown) {
  const got = await api.get(path);
  assert.equal(got.status, 200);
  assert.deepEqual(data, got.body.data);
}

const lineItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, quantity: 1, unitPrice: 10 + i }));

describe('round trips: quotes and jobs', () => {
  let quoteId: number;
  let jobId: number;
  let created: unknown;

  test('creating a quote with 10 line items and a contact: 6 statements at most', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.post('/api/v1/quotes', { name: 'Roof', contact_id: contactId, salesperson_id: userId, line_items: lineItems });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      quoteId = res.body.data.id;
      assert.equal(res.body.data.contact.first_name, 'Ada');
      created = res.body.data;
    });
    within(s, 6, 'POST /quotes');
    await answersLikeGet(`/api/v1/quotes/${quoteId}`, created);
  });

  test('GET quote by id: 1 statement', async () => {
    const s = await statementsOf(t, async () => assert.equal((await api.get(`/api/v1/quotes/${quoteId}`)).status, 200));
    within(s, 1, 'GET /quotes/:id');
  });

  // begin; the locked detail read (with the job custom field definitions,
  // D23); the quote update (returning its job, read after the lock, D14); its
  // status change row; the job number (D13); the job insert; the outbox rows
  // new_job, quote_accepted and quote_updated (E14) in one INSERT (emitAll, D16); commit.
  test('accepting it (D14 creates its job): 8 statements at most', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.put(`/api/v1/quotes/${quoteId}/status`, { status: 'accepted' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      jobId = res.body.data.job.id;
      assert.equal(res.body.data.status_changes.length, 1);
      created = res.body.data;
    });
    within(s, 8, 'PUT /quotes/:id/status accepted');
    await answersLikeGet(`/api/v1/quotes/${quoteId}`, created);
    const job = (await api.get(`/api/v1/jobs/${jobId}`)).body.data;
    assert.deepEqual(job.quote, { id: quoteId, number: 1, name: 'Roof', status: 'accepted' });
    assert.equal(job.salesperson.id, userId);
  });

  test('updating a quote (PUT with a new contact): 6 statements at most', async () => {
    const other = (await api.post('/api/v1/contacts', { first_name: 'Grace', last_name: 'Hopper' })).body.data.id;
    const s = await statementsOf(t, async () => {
      const res = await api.put(`/api/v1/quotes/${quoteId}`, { name: 'Roof and gutters', contact_id: other });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.contact.first_name, 'Grace');
      assert.equal(res.body.data.job.id, jobId);
      created = res.body.data;
    });
    await answersLikeGet(`/api/v1/quotes/${quoteId}`, created);
    // begin, locked read, references, update, commit
    within(s, 6, 'PUT /quotes/:id'); // + quote_updated (E14)
  });

  test('creating a job with a contact: 6 statements at most, its update 6', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.post('/api/v1/jobs', { name: 'Gutters', contact_id: contactId, line_items: lineItems });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.data.contact.first_name, 'Ada');
      created = res.body.data;
    });
    within(s, 6, 'POST /jobs');
    await answersLikeGet(`/api/v1/jobs/${(created as { id: number }).id}`, created);
    // And a PUT of the job: the locked read, the references, the update.
    const other = (await api.post('/api/v1/contacts', { first_name: 'Alan', last_name: 'Turing' })).body.data.id;
    let updated: unknown;
    const u = await statementsOf(t, async () => {
      const res = await api.put(`/api/v1/jobs/${(created as { id: number }).id}`, { contact_id: other, quote_id: null });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      updated = res.body.data;
    });
    within(u, 6, 'PUT /jobs/:id'); // + job_updated (E14)
    await answersLikeGet(`/api/v1/jobs/${(created as { id: number }).id}`, updated);
  });

  test('a quote created as accepted (D14) answers its job like the GET', async () => {
    const res = await api.post('/api/v1/quotes', { name: 'Fence', status: 'accepted', contact_id: contactId, line_items: lineItems });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.job.status, 'draft');
    await answersLikeGet(`/api/v1/quotes/${res.body.data.id}`, res.body.data);
  });

  test('GET job by id: 1 statement', async () => {
    const s = await statementsOf(t, async () => assert.equal((await api.get(`/api/v1/jobs/${jobId}`)).status, 200));
    within(s, 1, 'GET /jobs/:id');
  });

  test('a list page of quotes or jobs: 2 statements at most', async () => {
    for (const url of ['/api/v1/quotes', '/api/v1/jobs']) {
      const s = await statementsOf(t, async () => assert.equal((await api.get(url)).status, 200));
      within(s, 2, `GET ${url}`);
    }
  });
});

describe('round trips: requests', () => {
  // begin; the contact, property and assignee with the D23 definitions (one
  // statement, the contact also feeds new_request's data, D33); the number
  // (D13); the insert; the outbox row; commit.
  test('creating a request with a contact and an assignee: 6 statements at most', async () => {
    let created: { id: number } | undefined;
    const s = await statementsOf(t, async () => {
      const res = await api.post('/api/v1/requests', { name: 'Leak', contact_id: contactId, assignee_id: userId });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      created = res.body.data;
    });
    within(s, 6, 'POST /requests');
    await answersLikeGet(`/api/v1/requests/${created!.id}`, created);
    const events = (await t.db.selectFrom('outbox').select('payload').where('event', '=', 'new_request').execute()).map((r) => JSON.parse(r.payload));
    assert.deepEqual(
      events.map((e) => [e.data.id, e.data.email, e.data.name]),
      [[created!.id, null, 'Leak']],
    );
  });
});

describe('round trips: contacts and events', () => {
  let id: number;
  let eventId: number;

  test('creating a contact with an owner: 5 statements at most (begin, owner + author + D23 definitions, insert, outbox, commit)', async () => {
    let created: { id: number } | undefined;
    const s = await statementsOf(t, async () => {
      const res = await api.post('/api/v1/contacts', { first_name: 'Mary', last_name: 'Somerville', owner_id: userId });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      created = res.body.data;
    });
    within(s, 5, 'POST /contacts');
    id = created!.id;
    await answersLikeGet(`/api/v1/contacts/${id}`, created);
  });

  test('GET contact by id (owner and created_by expanded): 1 statement', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.get(`/api/v1/contacts/${id}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.owner.id, userId);
      assert.ok(res.body.data.created_by, 'created_by expanded');
    });
    within(s, 1, 'GET /contacts/:id');
  });

  test('GET event by id (assignees and job expanded): 1 statement; a list page of events or contacts: 2 at most', async () => {
    const res = await api.post('/api/v1/events', { name: 'Visit', start_date: '2026-12-01', end_date: '2026-12-01', start_time: '09:00', end_time: '10:00', assignee_ids: [userId] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    eventId = res.body.data.id;
    await answersLikeGet(`/api/v1/events/${eventId}`, res.body.data);
    const s = await statementsOf(t, async () => {
      const got = await api.get(`/api/v1/events/${eventId}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body.data.assignee_ids, [userId]);
      assert.equal(got.body.data.assignees[0].id, userId);
    });
    within(s, 1, 'GET /events/:id');
    for (const url of ['/api/v1/events', '/api/v1/contacts', '/api/v1/contacts?search=Somerville']) {
      const l = await statementsOf(t, async () => assert.equal((await api.get(url)).status, 200));
      within(l, 2, `GET ${url}`);
    }
  });
});

// A1: sign-in reads the account with its memberships and workspaces (1), inserts
// the session (2) and drops the person's expired ones (3); then a session's GET
// reads its session and membership in 1 besides the route's own.
describe('round trips: sessions', () => {
  test('sign-in: 4 statements at most; a session GET /contacts/:id: the session lookup + 1', async () => {
    const ws = await seedWorkspace(t.db);
    await setUp(t.app, t.db, ws.workspace.id, ws.owner.user_id);
    t.queries.length = 0;
    const b = await signIn(t.app, ws.owner.email);
    within(t.queries.filter((q) => !isSweeper(q)), 4, 'POST /api/auth/sign-in');
    const c = await b.post('/api/v1/contacts', { first_name: 'Ada', last_name: 'Session' });
    t.queries.length = 0;
    assert.equal((await call(t.app, 'GET', `/api/v1/contacts/${c.body.data.id}`, { cookie: b.cookie })).status, 200);
    within(t.queries.filter((q) => !isSweeper(q)), 2, 'GET /contacts/:id with a session');
  });
});

// E8: the customer's page of a quote awaiting their answer reads the link, its contact
// and workspace and the quote in one statement; the customer's message after an answer
// (changes asked for, a decline) is one more.
describe('round trips: the hub', () => {
  test('the hub page of an open quote: 1 statement; of a quote sent back for changes: 3 at most', async () => {
    const ws = await seedWorkspace(t.db);
    const owner = client(t.app, ws.token);
    const contact = (await owner.post('/api/v1/contacts', { first_name: 'Hana', last_name: 'Hub', email: 'hana@example.test' })).body.data.id as number;
    const quote = (await owner.post('/api/v1/quotes', { contact_id: contact, status: 'awaiting_response', line_items: lineItems })).body.data.id as number;
    const page = `${new URL((await owner.post(`/api/v1/contacts/${contact}/hub-link`)).body.data.url).pathname}/quotes/${quote}`;
    const get = () => t.app.inject({ method: 'GET', url: page });
    t.queries.length = 0;
    const open = await get();
    assert.equal(open.statusCode, 200);
    assert.match(open.body, /Awaiting your answer/);
    within(t.queries.filter((q) => !isSweeper(q)), 1, 'GET /hub/<token>/quotes/:id (open)');
    const asked = await t.app.inject({ method: 'POST', url: `${page}/request-changes`, payload: { message: 'Fewer shrubs, please' } });
    assert.equal(asked.statusCode, 303);
    t.queries.length = 0;
    const changes = await get();
    assert.equal(changes.statusCode, 200);
    assert.match(changes.body, /Fewer shrubs, please/);
    within(t.queries.filter((q) => !isSweeper(q)), 3, 'GET /hub/<token>/quotes/:id (changes asked for)');
  });
});

// F166: the hot writes' statements are built and compiled once per shape. A Kysely plugin
// sees every statement a builder compiles; a shaped statement runs already compiled.
describe('hot writes compiled once per shape (F166; accepting a quote: F178)', () => {
  test('accepting a quote (its update, status change, job, counter and events) and updating a job build no statement after the first of their shape', async () => {
    let built = 0;
    const counting = t.db.withPlugin({
      transformQuery: ({ node }) => {
        built++;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const ws = await seedWorkspace(t.db);
    const owner = client(t.app, ws.token);
    const drafts: number[] = [];
    for (let i = 0; i < 2; i++) drafts.push((await owner.post('/api/v1/quotes', { name: `Shape ${i}`, contact_id: null, line_items: lineItems })).body.data.id as number);
    const accept = (id: number) => counting.transaction().execute((trx) => setQuoteStatus(trx, ws.workspace.id, null, id, 'accepted', null));
    await accept(drafts[0]!);
    built = 0;
    const second = await accept(drafts[1]!);
    assert.equal(second.status, 'accepted');
    assert.equal(built, 0, 'a second accept of the same shape compiled statements');

    const jobId = second.job!.id;
    await updateJobRow(counting, ws.workspace.id, jobId, { name: 'First edit', updated_at: new Date().toISOString() });
    built = 0;
    const edited = await updateJobRow(counting, ws.workspace.id, jobId, { name: 'Second edit', updated_at: new Date().toISOString() });
    assert.equal(edited.name, 'Second edit');
    assert.equal(built, 0, 'a second job update of the same shape compiled statements');
    assert.equal((await owner.get(`/api/v1/jobs/${jobId}`)).body.data.name, 'Second edit');
  });
});
