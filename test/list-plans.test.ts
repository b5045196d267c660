import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { paginate, sortByName } from '../src/db/list-query.ts';
import { backend, buildTestApp, client, keyFor, planOf as planOfIn, seedWorkspace, type TestApp } from './helpers.ts';

// Migration 0020: a status-filtered document list is one index range in D1 order, not a
// walk of every newer document in other statuses, nor a sort of the whole status.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(() => t.close());

const planOf = (statement: string) => planOfIn(t.db, statement);

describe('lists filtered by status', () => {
  for (const [table, status] of [
    ['requests', 'new'],
    ['quotes', 'awaiting_response'],
    ['jobs', 'active'],
    ['invoices', 'sent'],
  ] as const) {
    test(`${table}: the page and its count read (workspace_id, status, created_at, id), with no sort`, async () => {
      const page = await planOf(`select id from ${table} where workspace_id = 1 and status in ('${status}') order by created_at desc, id desc limit 25 offset 0`);
      assert.match(page, new RegExp(`${table}_workspace_status_created`), page);
      assert.doesNotMatch(page, backend === 'postgres' ? /Sort/ : /TEMP B-TREE/, page);
      const count = await planOf(`select count(*) from ${table} where workspace_id = 1 and status in ('${status}')`);
      // An open invoice status may be counted from the receivables' partial index of open
      // invoices (migration 0027), which holds only those statuses: the same bounded range.
      assert.match(count, table === 'invoices' ? /invoices_workspace_status_created|invoices_open_balances/ : new RegExp(`${table}_workspace_status_created`), count);
    });
  }
});

// F182: a quote's job (read with every quote: jobOfQuoteJson) is found through the unique
// quote_id index, even by a plan made while `jobs` was empty, as a PostgreSQL connection's
// named statement keeps its first generic plan; the workspace is checked on the job found.
test("a quote's job is read through its unique quote_id, by a plan made on an empty jobs table", async () => {
  const lookup =
    'select q.id, (select j.id from jobs j where j.quote_id = q.id and j.workspace_id + 0 = q.workspace_id) as job from quotes q where q.workspace_id = $1 and q.id = $2';
  if (backend === 'postgres') {
    const plan = await t.db.connection().execute(async (conn) => {
      assert.equal(Number((await sql<{ n: number }>`select count(*) as n from jobs`.execute(conn)).rows[0]?.n), 0);
      await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
      await sql.raw(`prepare job_of_quote(int, int) as ${lookup}`).execute(conn);
      const r = await sql<{ 'QUERY PLAN': string }>`explain execute job_of_quote(1, 1)`.execute(conn);
      await sql`deallocate job_of_quote`.execute(conn);
      await sql`reset plan_cache_mode`.execute(conn);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /Index Cond: \(quote_id = q\.id\)/, plan);
  } else {
    const plan = await planOf(lookup.replace('$1', '1').replace('$2', '1'));
    assert.match(plan, /SEARCH j USING INDEX \S+ \(quote_id=\?\)/, plan);
  }
});

test("the quote read's SQL looks its job up as the plan test above does", async () => {
  const { token } = await seedWorkspace(t.db);
  const api = client(t.app, token);
  const id = (await api.post('/api/v1/quotes', { name: 'Plan' })).body.data.id;
  t.queries.length = 0;
  assert.equal((await api.get(`/api/v1/quotes/${id}`)).status, 200);
  const read = t.queries.find((q) => q.includes('from "jobs"'));
  assert.match(read ?? '', /"jobs"\."quote_id" = "quotes"\."id" and "jobs"\."workspace_id" \+ 0 = "quotes"\."workspace_id"/, read);
});

// Migration 0023: a website form's contact match by email (intake.repo.ts matchContact) is
// one seek in id order, not a walk of the workspace's contacts up to the first match.
test("a form's contact match by email reads (workspace_id, lower(email), id), with no sort", async () => {
  const plan = await planOf("select id from contacts where workspace_id = 1 and lower(email) = 'web@example.test' order by id asc limit 1");
  assert.match(plan, /contacts_workspace_lower_email/, plan);
  assert.doesNotMatch(plan, backend === 'postgres' ? /Sort/ : /TEMP B-TREE/, plan);
});

test('with that index, a contact list page still reads (workspace_id, created_at, id), with no sort', async () => {
  const page = await planOf('select id from contacts where workspace_id = 1 order by created_at desc, id desc limit 25 offset 0');
  assert.match(page, /contacts_workspace_created/, page);
  assert.doesNotMatch(page, backend === 'postgres' ? /Sort/ : /TEMP B-TREE/, page);
});

test("the form's SQL matches by email as the plan test above does", async () => {
  const ws = await seedWorkspace(t.db);
  const apiKey = await keyFor(t.db, ws.workspace.id, 'embed_forms');
  t.queries.length = 0;
  const res = await client(t.app).post('/api/forms/embed-request', { apiKey, formData: { firstName: 'Web', lastName: 'Visitor', email: 'Web@Example.test', phone: '+15550100', description: 'Leaking tap' } });
  const match = t.queries.find((q) => q.includes('lower("email")'));
  assert.match(match ?? '', /where "workspace_id" = \S+ and lower\("email"\) = \S+ order by "id" asc limit \S+/, `${res.status} ${JSON.stringify(res.body)} ${match}`);
});

// A list page's size is in its statement's text and the first page has no OFFSET
// (src/db/list-query.ts): PostgreSQL then keeps a generic plan for the named statement
// after its fifth run. With LIMIT and OFFSET as parameters, the generic plan looked
// costlier than every custom one, so each run was planned anew.
test('a list page states its size and, on page 1, no OFFSET, so PostgreSQL keeps a generic plan (not with a search or a sync window)', async () => {
  const { token, workspace } = await seedWorkspace(t.db);
  const api = client(t.app, token);
  for (const day of ['2031-03-03', '2031-03-04', '2031-03-05']) assert.equal((await api.post('/api/v1/events', { start_date: day, end_date: day, name: `On ${day}` })).status, 201);
  const week = '/api/v1/events?start_date=2031-03-02&end_date=2031-03-08&per_page=100';
  t.queries.length = 0;
  for (let i = 0; i < 8; i++) assert.equal((await api.get(week)).body.data.length, 3);
  const pages = new Set(t.queries.filter((q) => q.includes('from "events"')));
  assert.equal(pages.size, 1, [...pages].join('\n'));
  const [page] = pages;
  assert.match(page, /order by "created_at" desc, "id" desc limit 100$/, page);
  t.queries.length = 0;
  assert.equal((await api.get(`${week}&page=2`)).body.data.length, 0);
  assert.match(t.queries.find((q) => q.includes('from "events"')) ?? '', /limit 100 offset (\$\d+|\?)$/);
  // A search term or a sync window: how many rows match decides the plan, so both stay parameters.
  for (const narrowed of [`${week}&search=On`, `${week}&updated_since=2000-01-01T00:00:00Z`]) {
    t.queries.length = 0;
    assert.equal((await api.get(narrowed)).body.data.length, 3);
    assert.match(t.queries.find((q) => q.includes('from "events"')) ?? '', /limit (\$\d+|\?) offset (\$\d+|\?)$/, narrowed);
  }
  // paginate(), the builder's fallback for a list it cannot cache, writes its page the same way.
  const spec = { id: 'id', sort: sortByName(['id']), search: ['name'] };
  const events = () => t.db.selectFrom('events').select('id').where('workspace_id', '=', workspace.id);
  for (const [params, page] of [
    [{ per_page: 100 }, /limit 100$/],
    [{ per_page: 100, page: 2 }, /limit 100 offset (\$\d+|\?)$/],
    [{ per_page: 100, search: 'On 2031' }, /limit (\$\d+|\?) offset (\$\d+|\?)$/],
  ] as const) {
    t.queries.length = 0;
    await paginate(t.db, events(), params, spec);
    assert.match(t.queries.find((q) => q.includes('from "events"')) ?? '', page, JSON.stringify(params));
  }
  if (backend === 'postgres') {
    // Sequential requests reuse the pool's most recently released connection, where the statement is named.
    const plans = await t.db.connection().execute(
      async (conn) => (await sql<{ generic_plans: number; custom_plans: number }>`select generic_plans, custom_plans from pg_prepared_statements where statement = ${page}`.execute(conn)).rows,
    );
    assert.equal(plans.length, 1, JSON.stringify(plans));
    assert.ok(Number(plans[0].generic_plans) >= 3, JSON.stringify(plans));
  }
});
