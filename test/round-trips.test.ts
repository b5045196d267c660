// Round trips per request (statements run, begin/commit included), on the
// database under test. Reads are one statement per record; writes answer from
// what they wrote. PostgreSQL caches authentication after the first request of a
// key; SQLite reads the key once per request: `statementsOf` leaves that lookup
// out, so the budgets are the same on both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type Client, client, seedUser, seedWorkspace, type TestApp } from './helpers.ts';

/** The statements `fn` runs, without the per-request API key lookup (see above). */
async function statementsOf(t: TestApp, fn: () => Promise<unknown>): Promise<string[]> {
  t.queries.length = 0;
  await fn();
  return t.queries.filter((q) => !/from "api_keys"/.test(q));
}

/** Asserts a budget, printing the statements when it is exceeded. */
function within(statements: string[], budget: number, what: string) {
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

const lineItems = Array.from({ length: 10 }, (_, i) => ({ name: `Item ${i}`, quantity: 1, unitPrice: 10 + i }));

describe('round trips: quotes and jobs', () => {
  let quoteId: number;
  let jobId: number;

  test('creating a quote with 10 line items and a contact: 6 statements at most', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.post('/api/v1/quotes', { name: 'Roof', contact_id: contactId, salesperson_id: userId, line_items: lineItems });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      quoteId = res.body.data.id;
      assert.equal(res.body.data.contact.first_name, 'Ada');
    });
    console.log(s);
    within(s, 6, 'POST /quotes');
  });

  test('GET quote by id: 1 statement', async () => {
    const s = await statementsOf(t, async () => assert.equal((await api.get(`/api/v1/quotes/${quoteId}`)).status, 200));
    within(s, 1, 'GET /quotes/:id');
  });

  test('accepting it (D14 creates its job): 8 statements at most', async () => {
    const s = await statementsOf(t, async () => {
      const res = await api.put(`/api/v1/quotes/${quoteId}/status`, { status: 'accepted' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      jobId = res.body.data.job.id;
    });
    console.log(s);
    within(s, 8, 'PUT /quotes/:id/status accepted');
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
