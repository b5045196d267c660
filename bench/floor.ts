// The floor of `npm run bench`: for each scenario, the same work as Fieldwork's route
// with nothing but the work, over the same database (FLOOR_DATABASE_URL). It hashes
// the bearer token and finds it in a Map, checks the scope, runs the statements the
// answer needs as prepared statements (better-sqlite3, or named statements on a pg
// pool), builds the same JSON (or the hub's same HTML, through the same template) and,
// for writes, the same rows: the record, its outbox rows, its counters and numbers.
// No validation library, hooks, logging, rate limit or idempotency. Prints its
// address on one line, then serves. bench/run.ts checks at start that every read
// answers what the app answers.
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Eta } from 'eta';
import type { SQLiteDatabase, SQLiteStatement } from '../src/db/sqlite-driver.ts';
import { applyPricing, type LineItem, type PricingInput } from '../src/domain/line-items.ts';
import { documentView } from '../src/domain/document-view.ts';
import { businessLines, formatDate, formatMoney, workspaceCurrency } from '../src/domain/format.ts';
import { fromCents, statusAfterPayments, totalCents } from '../src/domain/money.ts';
import { zonedDate } from '../src/domain/zoned-time.ts';

type Row = Record<string, unknown>;
type Params = readonly unknown[];
interface Runner {
  all(sql: string, params: Params): Promise<Row[]>;
}
interface Store extends Runner {
  dialect: 'sqlite' | 'postgres';
  /** A write transaction. */
  tx<T>(fn: (r: Runner) => Promise<T>): Promise<T>;
}

const url = process.env.FLOOR_DATABASE_URL;
if (!url) throw new Error('FLOOR_DATABASE_URL is required');

async function openStore(dbUrl: string): Promise<Store> {
  if (dbUrl.startsWith('sqlite:')) {
    const { SQLite } = await import('../src/db/sqlite-driver.ts'); // F243: the driver this Node can run
    const file = dbUrl.slice('sqlite:'.length);
    const open = (readOnly: boolean) => {
      const c = new SQLite(file);
      c.pragma('busy_timeout = 5000');
      c.pragma(readOnly ? 'query_only = 1' : 'synchronous = NORMAL');
      return c;
    };
    // As the app: writes on one connection, reads on a second (WAL), each statement prepared once.
    const writer = open(false);
    const reader = open(true);
    const cache = (c: SQLiteDatabase) => {
      const m = new Map<string, SQLiteStatement>();
      return (sql: string) => {
        let s = m.get(sql);
        if (!s) {
          s = c.prepare(sql);
          m.set(sql, s);
        }
        return s;
      };
    };
    const read = cache(reader);
    const write = cache(writer);
    const run = (prep: typeof read, sql: string, params: Params): Row[] => {
      const s = prep(sql);
      const values = params as unknown[];
      if (s.reader) return s.all(...values) as Row[];
      s.run(...values);
      return [];
    };
    // One transaction at a time on the writer (better-sqlite3 is synchronous; the
    // queue only matters if a transaction awaited something truly asynchronous).
    let queue: Promise<unknown> = Promise.resolve();
    return {
      dialect: 'sqlite',
      all: async (sql, params) => run(read, sql, params),
      tx<T>(fn: (r: Runner) => Promise<T>): Promise<T> {
        const next = queue.then(async () => {
          write('begin immediate').run([]);
          try {
            const out = await fn({ all: async (sql, params) => run(write, sql, params) });
            write('commit').run([]);
            return out;
          } catch (err) {
            write('rollback').run([]);
            throw err;
          }
        });
        queue = next.catch(() => undefined);
        return next;
      },
    };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: dbUrl,
    max: 10,
    // As the app: JSON as text, int8 as a number.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === 114 || oid === 3802) return (v: string) => v;
        if (oid === 20) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  // Named statements: parsed and planned once per connection.
  const names = new Map<string, { name: string; text: string }>();
  const named = (sql: string) => {
    let n = names.get(sql);
    if (!n) {
      let i = 0;
      n = { name: `floor_${names.size}`, text: sql.replace(/\?/g, () => `$${++i}`) };
      names.set(sql, n);
    }
    return n;
  };
  type Queryable = Pick<InstanceType<typeof pg.Pool>, 'query'>;
  const on = (c: Queryable): Runner => ({ all: async (sql, params) => (await c.query({ ...named(sql), values: params as unknown[] })).rows });
  return {
    dialect: 'postgres',
    ...on(pool),
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await fn(on(client));
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

const store = await openStore(url);
const pgsql = store.dialect === 'postgres';
/** A row without `skip`, in one pass: a rest pattern (`{ a, ...rest }`) takes V8's slow path (as the app's codec, src/db/codec.ts). */
function copyWithout(r: Row, skip: ReadonlySet<string>): Row {
  const out: Row = {};
  for (const k in r) if (!skip.has(k)) out[k] = r[k];
  return out;
}
const json = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v);
const now = () => new Date().toISOString();

// ---- keys: hashed token -> key, in a Map (loaded once; the bench mints no keys) ----
interface Key {
  workspaceId: number;
  userId: string;
  scopes: string[];
}
const keys = new Map<string, Key>();
for (const k of await store.all('select token_hash, workspace_id, user_id, scopes from api_keys where revoked_at is null and user_id is not null', [])) {
  keys.set(String(k.token_hash), { workspaceId: Number(k.workspace_id), userId: String(k.user_id), scopes: json(k.scopes) as string[] });
}
function auth(req: FastifyRequest, reply: FastifyReply, scope: string): Key | undefined {
  const h = req.headers.authorization;
  const key = h?.startsWith('Bearer ') ? keys.get(createHash('sha256').update(h.slice(7)).digest('hex')) : undefined;
  if (!key) {
    reply.code(401).send({ success: false, error: 'Invalid API key' });
    return undefined;
  }
  if (!key.scopes.includes(scope) && !key.scopes.includes(scope.endsWith(':read') ? 'read' : 'write')) {
    reply.code(403).send({ success: false, error: `Insufficient permissions. Required scope: ${scope}` });
    return undefined;
  }
  return key;
}
const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
const notFound = (reply: FastifyReply, what: string) => send(reply, 404, { success: false, error: `${what} not found` });
const positive = (s: string) => (/^[1-9]\d{0,14}$/.test(s) ? Number(s) : 0);
type IdParams = { Params: { id: string } };

// ---- shapes ----
const CONTACT_COLUMNS =
  'id, workspace_id, first_name, last_name, email, phone, secondary_email, secondary_phone, company, company_department, company_position, title, type, owner_id, info, custom_fields, created_at, updated_at';
const contactOf = (r: Row) => ({ ...r, info: json(r.info), custom_fields: json(r.custom_fields) });
const userRef = (id: unknown, first: unknown, last: unknown) => (id ? { id, first_name: first, last_name: last } : null);
const perPageOf = (q: { per_page?: string }) => Math.min(100, Math.max(1, Math.trunc(Number(q.per_page ?? 25)) || 25));
const pageOf = (q: { page?: string }) => Math.max(1, Math.trunc(Number(q.page ?? 1)) || 1);
/**
 * A page's LIMIT and OFFSET as the app writes them when there is no search nor sync
 * window (src/db/list-query.ts, F193): the size in the text and no OFFSET on the first
 * page, so PostgreSQL keeps a generic plan.
 */
const pageSql = (page: number, perPage: number): { sql: string; params: number[] } =>
  page === 1 ? { sql: `limit ${perPage}`, params: [] } : { sql: `limit ${perPage} offset ?`, params: [(page - 1) * perPage] };
/** The total only when the page cannot tell it (as the app's list builder). */
async function pagination(rows: number, page: number, perPage: number, count: () => Promise<number>) {
  const total = rows === 0 || rows === perPage ? await count() : (page - 1) * perPage + rows;
  return { page, per_page: perPage, total_pages: Math.ceil(total / perPage) };
}
const countOf = async (sql: string, params: Params) => Number((await store.all(sql, params))[0]?.n ?? 0);

async function outbox(r: Runner, workspaceId: number, events: { event: string; data: object; link: string }[]) {
  const timestamp = now();
  const values = events.map(() => '(?, ?, ?, ?)').join(', ');
  const params = events.flatMap((e) => [workspaceId, e.event, JSON.stringify({ event: e.event, workspace_id: workspaceId, timestamp, data: e.data, link_path: e.link }), timestamp]);
  await r.all(`insert into outbox (workspace_id, event, payload, created_at) values ${values}`, params);
}
async function nextNumber(r: Runner, workspaceId: number, kind: string): Promise<number> {
  const [row] = await r.all('insert into counters (workspace_id, kind, value) values (?, ?, 1) on conflict (workspace_id, kind) do update set value = counters.value + 1 returning value', [
    workspaceId,
    kind,
  ]);
  return Number(row.value);
}

const app = Fastify();

// ---- contacts ----
const contactDetailSql = `select ${CONTACT_COLUMNS
  .split(', ')
  .map((c) => `c.${c}`)
  .join(', ')}, o.user_id as o_id, o.first_name as o_first, o.last_name as o_last, b.user_id as b_id, b.first_name as b_first, b.last_name as b_last
  from contacts c left join users o on o.workspace_id = c.workspace_id and o.user_id = c.owner_id
  left join users b on b.workspace_id = c.workspace_id and b.user_id = c.created_by where c.workspace_id = ? and c.id = ?`;
const USER_COLUMNS = new Set(['o_id', 'o_first', 'o_last', 'b_id', 'b_first', 'b_last']);
app.get<IdParams>('/api/v1/contacts/:id', async (req, reply) => {
  const key = auth(req, reply, 'contacts:read');
  if (!key) return reply;
  const [r] = await store.all(contactDetailSql, [key.workspaceId, positive(req.params.id)]);
  if (!r) return notFound(reply, 'Contact');
  const row = copyWithout(r, USER_COLUMNS);
  return send(reply, 200, { success: true, data: { ...contactOf(row), owner: userRef(r.o_id, r.o_first, r.o_last), created_by: userRef(r.b_id, r.b_first, r.b_last) } });
});

// The app's search: the SPEC's case-insensitive match on the columns, candidates from the trigram index (migration 0009).
const SEARCH_WHERE = `(lower(first_name) like ? escape '\\' or lower(last_name) like ? escape '\\' or lower(email) like ? escape '\\' or lower(phone) like ? escape '\\'
  or lower(first_name || ' ' || last_name) like ? escape '\\') and id in (select rowid from contacts_search where doc like ?)`;
app.get<{ Querystring: { search?: string; page?: string; per_page?: string } }>('/api/v1/contacts', async (req, reply) => {
  const key = auth(req, reply, 'contacts:read');
  if (!key) return reply;
  const page = pageOf(req.query);
  const perPage = perPageOf(req.query);
  const term = req.query.search?.trim().toLowerCase();
  let rows: Row[];
  let count: () => Promise<number>;
  if (term && term.length >= 3 && !/[\\%_]/.test(term)) {
    const like = `%${term}%`;
    const params = [key.workspaceId, like, like, like, like, like, like];
    // As the app's search (src/db/list-query.ts): the page as parameters, so each term is planned for itself.
    rows = await store.all(`select ${CONTACT_COLUMNS} from contacts where workspace_id = ? and ${SEARCH_WHERE} order by created_at desc, id desc limit ? offset ?`, [
      ...params,
      perPage,
      (page - 1) * perPage,
    ]);
    count = () => countOf(`select count(*) as n from contacts where workspace_id = ? and ${SEARCH_WHERE}`, params);
  } else {
    const limit = pageSql(page, perPage);
    rows = await store.all(`select ${CONTACT_COLUMNS} from contacts where workspace_id = ? order by created_at desc, id desc ${limit.sql}`, [key.workspaceId, ...limit.params]);
    count = () => countOf("select coalesce(sum(n), 0) as n from row_counts where workspace_id = ? and table_name = 'contacts'", [key.workspaceId]);
  }
  return send(reply, 200, { success: true, data: rows.map(contactOf), pagination: await pagination(rows.length, page, perPage, count) });
});

const userSql = 'select user_id, first_name, last_name from users where workspace_id = ? and user_id = ?';
app.post<{ Body: Record<string, string | undefined> }>('/api/v1/contacts', async (req, reply) => {
  const key = auth(req, reply, 'contacts:write');
  if (!key) return reply;
  const b = req.body;
  const data = await store.tx(async (r) => {
    const [u] = await r.all(userSql, [key.workspaceId, key.userId]);
    const at = now();
    const [row] = await r.all(
      `insert into contacts (type, first_name, last_name, email, workspace_id, created_by, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?) returning ${CONTACT_COLUMNS}`,
      [b.type ?? 'none', b.first_name ?? null, b.last_name ?? null, b.email ?? null, key.workspaceId, key.userId, at, at],
    );
    const contact = { ...contactOf(row), owner: null, created_by: u ? userRef(u.user_id, u.first_name, u.last_name) : null };
    await outbox(r, key.workspaceId, [{ event: 'new_contact', data: contact, link: `/api/v1/contacts/${row.id}` }]);
    return contact;
  });
  return send(reply, 201, { success: true, data });
});

// ---- quotes ----
const QUOTE_JSON = ['line_items', 'custom_fields', 'approval'];
const CREATED_BY = new Set(['created_by']);
function quoteOf(row: Row, skip: ReadonlySet<string> = CREATED_BY): Row {
  const q = copyWithout(row, skip);
  for (const k of QUOTE_JSON) q[k] = json(q[k]);
  return q;
}
const agg = (sqlite: string, pg: string) => (pgsql ? pg : sqlite);
// The single GET: the quote, its contact, property, request, salesperson, job and status changes in one
// statement. The bench's quote names no property, request or salesperson, but the answer needs the
// lookups to know it, as the app's statement does.
const quoteDetailSql = (lock: boolean) => `select q.*, c.id as c_id, c.first_name as c_first, c.last_name as c_last, c.email as c_email, c.phone as c_phone,
  p.id as p_id, p.street as p_street, p.street_2 as p_street_2, p.city as p_city, p.state as p_state, p.postal_code as p_postal_code, p.country as p_country, p.property_type as p_type,
  r.id as r_id, r.number as r_number, r.name as r_name, r.status as r_status,
  sp.user_id as s_id, sp.first_name as s_first, sp.last_name as s_last,
  j.id as j_id, j.number as j_number, j.name as j_name, j.status as j_status,
  ${agg(
    "(select coalesce(json_group_array(json_object('status', s.status, 'comment', s.comment, 'user_id', s.user_id, 'created_at', s.created_at)), '[]') from (select * from quote_status_changes where workspace_id = q.workspace_id and quote_id = q.id order by id) s)",
    "(select coalesce(json_agg(json_build_object('status', s.status, 'comment', s.comment, 'user_id', s.user_id, 'created_at', s.created_at) order by s.id), '[]') from quote_status_changes s where s.workspace_id = q.workspace_id and s.quote_id = q.id)",
  )} as changes
  from quotes q left join contacts c on c.workspace_id = q.workspace_id and c.id = q.contact_id
  left join properties p on p.workspace_id = q.workspace_id and p.id = q.property_id
  left join requests r on r.workspace_id = q.workspace_id and r.id = q.request_id
  left join users sp on sp.workspace_id = q.workspace_id and sp.user_id = q.salesperson_id
  left join jobs j on j.workspace_id = q.workspace_id and j.quote_id = q.id where q.workspace_id = ? and q.id = ?${lock ? (pgsql ? ' for update of q' : '') : ''}`;
const QUOTE_DETAIL_EXTRA = new Set([
  'created_by', 'c_id', 'c_first', 'c_last', 'c_email', 'c_phone',
  'p_id', 'p_street', 'p_street_2', 'p_city', 'p_state', 'p_postal_code', 'p_country', 'p_type',
  'r_id', 'r_number', 'r_name', 'r_status', 's_id', 's_first', 's_last',
  'j_id', 'j_number', 'j_name', 'j_status', 'changes',
]);
function quoteDetailOf(r: Row): Row & { contact: Row | null; status_changes: unknown[] } {
  return Object.assign(quoteOf(r, QUOTE_DETAIL_EXTRA), {
    contact: r.c_id ? { id: r.c_id, first_name: r.c_first, last_name: r.c_last, email: r.c_email, phone: r.c_phone } : null,
    property: r.p_id
      ? { id: r.p_id, address: { street: r.p_street, street_2: r.p_street_2, city: r.p_city, state: r.p_state, postal_code: r.p_postal_code, country: r.p_country }, property_type: r.p_type }
      : null,
    request: r.r_id ? { id: r.r_id, number: r.r_number, name: r.r_name, status: r.r_status } : null,
    salesperson: userRef(r.s_id, r.s_first, r.s_last),
    job: r.j_id ? { id: r.j_id, number: r.j_number, name: r.j_name, status: r.j_status } : null,
    status_changes: json(r.changes) as unknown[],
  });
}
const toNumber = (r: Row, ...cols: string[]) => {
  // numeric columns arrive as text from pg
  for (const c of cols) if (typeof r[c] === 'string') r[c] = Number(r[c]);
  return r;
};
const PRICED = ['discount', 'deposit', 'tax_rate', 'total'];
app.get<IdParams>('/api/v1/quotes/:id', async (req, reply) => {
  const key = auth(req, reply, 'quotes:read');
  if (!key) return reply;
  const [r] = await store.all(quoteDetailSql(false), [key.workspaceId, positive(req.params.id)]);
  if (!r) return notFound(reply, 'Quote');
  return send(reply, 200, { success: true, data: quoteDetailOf(toNumber(r, ...PRICED)) });
});

app.get<{ Querystring: { status?: string; page?: string; per_page?: string } }>('/api/v1/quotes', async (req, reply) => {
  const key = auth(req, reply, 'quotes:read');
  if (!key) return reply;
  const page = pageOf(req.query);
  const perPage = perPageOf(req.query);
  const status = req.query.status ?? '';
  const limit = pageSql(page, perPage);
  const rows = await store.all(
    `select id, number, name, status, contact_id, total, date, expire_on, created_at from quotes where workspace_id = ? and status = ? order by created_at desc, id desc ${limit.sql}`,
    [key.workspaceId, status, ...limit.params],
  );
  const p = await pagination(rows.length, page, perPage, () => countOf('select count(*) as n from quotes where workspace_id = ? and status = ?', [key.workspaceId, status]));
  return send(reply, 200, { success: true, data: rows.map((r) => toNumber(r, 'total')), pagination: p });
});

const contactRefSql = 'select id, first_name, last_name, email, phone from contacts where workspace_id = ? and id = ?';
app.post<{ Body: PricingInput & Record<string, unknown> }>('/api/v1/quotes', async (req, reply) => {
  const key = auth(req, reply, 'quotes:write');
  if (!key) return reply;
  const b = req.body;
  const pricing = applyPricing(null, b, undefined);
  const data = await store.tx(async (r) => {
    const [contact] = b.contact_id ? await r.all(contactRefSql, [key.workspaceId, b.contact_id]) : [];
    const number = await nextNumber(r, key.workspaceId, 'quotes');
    const at = now();
    const [row] = await r.all(
      `insert into quotes (name, contact_id, line_items, discount, discount_unit, deposit, deposit_unit, tax_rate, tax_rate_id, total, status, number, workspace_id, created_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [
        b.name ?? null,
        b.contact_id ?? null,
        JSON.stringify(pricing.line_items),
        pricing.discount,
        pricing.discount_unit,
        pricing.deposit,
        pricing.deposit_unit,
        pricing.tax_rate,
        pricing.tax_rate_id,
        pricing.total,
        'draft',
        number,
        key.workspaceId,
        key.userId,
        at,
        at,
      ],
    );
    const quote = { ...quoteOf(toNumber(row, ...PRICED)), contact: contact ?? null, property: null, request: null, salesperson: null, job: null, status_changes: [] };
    await outbox(r, key.workspaceId, [{ event: 'new_quote', data: quote, link: `/api/v1/quotes/${row.id}` }]);
    return quote;
  });
  return send(reply, 201, { success: true, data });
});

// Accepting: the status, its change row, the job (D14) with its number, three events.
app.put<IdParams & { Body: { status: string } }>('/api/v1/quotes/:id/status', async (req, reply) => {
  const key = auth(req, reply, 'quotes:write');
  if (!key) return reply;
  if (req.body.status !== 'accepted') return send(reply, 400, { success: false, error: 'the floor only accepts' });
  const data = await store.tx(async (r) => {
    const [found] = await r.all(quoteDetailSql(true), [key.workspaceId, positive(req.params.id)]);
    if (!found) return undefined;
    const before = quoteDetailOf(toNumber(found, ...PRICED));
    const at = now();
    const [row] = await r.all("update quotes set status = 'accepted', updated_at = ? where workspace_id = ? and id = ? returning *", [at, key.workspaceId, before.id]);
    await r.all('insert into quote_status_changes (quote_id, status, comment, user_id, created_at, workspace_id) values (?, ?, ?, ?, ?, ?)', [
      before.id,
      'accepted',
      null,
      key.userId,
      at,
      key.workspaceId,
    ]);
    const q = quoteOf(toNumber(row, ...PRICED)) as Row & { line_items: LineItem[] };
    const number = await nextNumber(r, key.workspaceId, 'jobs');
    const [job] = await r.all(
      `insert into jobs (name, contact_id, property_id, request_id, quote_id, salesperson_id, type, expected_end_date, expenses, status, custom_fields, line_items, discount, discount_unit,
        deposit, deposit_unit, tax_rate, tax_rate_id, total, number, workspace_id, created_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'one-off', null, '[]', 'draft', null, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [
        q.name,
        q.contact_id,
        q.property_id,
        q.request_id,
        q.id,
        q.salesperson_id,
        JSON.stringify(q.line_items.map((item) => ({ ...item, id: randomUUID() }))),
        q.discount,
        q.discount_unit,
        q.deposit,
        q.deposit_unit,
        q.tax_rate,
        q.tax_rate_id,
        q.total,
        number,
        key.workspaceId,
        key.userId,
        at,
        at,
      ],
    );
    const jobRow = copyWithout(toNumber(job, ...PRICED), CREATED_BY);
    const jobData = {
      ...jobRow,
      line_items: json(jobRow.line_items),
      expenses: json(jobRow.expenses),
      custom_fields: json(jobRow.custom_fields),
      contact: before.contact,
      property: null,
      request: null,
      salesperson: null,
      quote: { id: q.id, number: q.number, name: q.name, status: q.status },
    };
    const quote = {
      ...q,
      contact: before.contact,
      property: null,
      request: null,
      salesperson: null,
      job: { id: job.id, number: job.number, name: job.name, status: job.status },
      status_changes: [...before.status_changes, { status: 'accepted', comment: null, user_id: key.userId, created_at: at }],
    };
    await outbox(r, key.workspaceId, [
      { event: 'new_job', data: jobData, link: `/api/v1/jobs/${job.id}` },
      { event: 'quote_accepted', data: quote, link: `/api/v1/quotes/${q.id}` },
      { event: 'quote_updated', data: quote, link: `/api/v1/quotes/${q.id}` },
    ]);
    return quote;
  });
  if (!data) return notFound(reply, 'Quote');
  return send(reply, 200, { success: true, data });
});

// ---- invoices ----
app.get<{ Querystring: { page?: string; per_page?: string } }>('/api/v1/invoices', async (req, reply) => {
  const key = auth(req, reply, 'invoices:read');
  if (!key) return reply;
  const page = pageOf(req.query);
  const perPage = perPageOf(req.query);
  const limit = pageSql(page, perPage);
  const rows = await store.all(
    `select id, number, name, contact_id, status, total, amount_paid_cents, date, due_date from invoices where workspace_id = ? order by created_at desc, id desc ${limit.sql}`,
    [key.workspaceId, ...limit.params],
  );
  const p = await pagination(rows.length, page, perPage, () => countOf('select count(*) as n from invoices where workspace_id = ?', [key.workspaceId]));
  const data = rows.map((r) => {
    const total = Number(r.total);
    const paid = Number(r.amount_paid_cents);
    return { id: r.id, number: r.number, name: r.name, contact_id: r.contact_id, status: r.status, total, amount_paid: fromCents(paid), balance: fromCents(totalCents(total) - paid), date: r.date, due_date: r.due_date };
  });
  return send(reply, 200, { success: true, data, pagination: p });
});

const INVOICE_JSON = ['line_items', 'event_ids', 'custom_fields'];
const INVOICE_OMITTED = new Set(['created_by', 'amount_paid_cents']);
app.post<IdParams & { Body: { amount: number; method?: string } }>('/api/v1/invoices/:id/payments', async (req, reply) => {
  const key = auth(req, reply, 'invoices:write');
  if (!key) return reply;
  const cents = Math.round(req.body.amount * 100);
  const data = await store.tx(async (r) => {
    // The invoice (locked), its contact and job, the workspace's time zone and the acting user, in one statement.
    const [found] = await r.all(
      `select i.*, c.id as c_id, c.first_name as c_first, c.last_name as c_last, j.id as j_id, j.number as j_number, j.name as j_name, j.status as j_status,
        w.timezone as w_tz, u.first_name as u_first, u.last_name as u_last
       from invoices i join workspaces w on w.id = i.workspace_id
       left join contacts c on c.workspace_id = i.workspace_id and c.id = i.contact_id left join jobs j on j.workspace_id = i.workspace_id and j.id = i.job_id
       left join users u on u.workspace_id = i.workspace_id and u.user_id = ?
       where i.workspace_id = ? and i.id = ?${pgsql ? ' for update of i' : ''}`,
      [key.userId, key.workspaceId, positive(req.params.id)],
    );
    if (!found) return undefined;
    const total = Number(found.total);
    const paid = Number(found.amount_paid_cents) + cents;
    if (cents > totalCents(total) - Number(found.amount_paid_cents)) throw new Error('exceeds the balance');
    const at = now();
    const [p] = await r.all(
      'insert into invoice_payments (workspace_id, invoice_id, amount_cents, method, paid_on, reference, note, created_by, created_at) values (?, ?, ?, ?, ?, null, null, ?, ?) returning id, paid_on',
      [key.workspaceId, found.id, cents, req.body.method ?? 'other', zonedDate(Date.now(), found.w_tz as string | null), key.userId, at],
    );
    const status = statusAfterPayments(String(found.status), total, paid);
    const [inv] = await r.all('update invoices set amount_paid_cents = ?, status = ?, updated_at = ? where workspace_id = ? and id = ? returning *', [
      paid,
      status,
      at,
      key.workspaceId,
      found.id,
    ]);
    const row = copyWithout(toNumber(inv, ...PRICED), INVOICE_OMITTED);
    for (const k of INVOICE_JSON) row[k] = json(row[k]);
    const invoice = {
      ...row,
      amount_paid: fromCents(paid),
      balance: fromCents(totalCents(total) - paid),
      contact: found.c_id ? { id: found.c_id, first_name: found.c_first, last_name: found.c_last } : null,
      job: found.j_id ? { id: found.j_id, number: found.j_number, name: found.j_name, status: found.j_status } : null,
    };
    const payment = {
      id: p.id,
      invoice_id: found.id,
      method: req.body.method ?? 'other',
      paid_on: p.paid_on,
      reference: null,
      note: null,
      created_at: at,
      amount: fromCents(cents),
      created_by: userRef(key.userId, found.u_first, found.u_last),
    };
    await outbox(r, key.workspaceId, [
      { event: 'invoice_updated', data: invoice, link: `/api/v1/invoices/${found.id}` },
      { event: 'payment_received', data: payment, link: `/api/v1/invoices/${found.id}/payments` },
    ]);
    return payment;
  });
  if (!data) return notFound(reply, 'Invoice');
  return send(reply, 201, { success: true, data });
});

// ---- events: a week of the calendar, with assignees ----
const EVENT_COLUMNS = 'id, workspace_id, name, description, job_id, request_id, start_date, end_date, start_time, end_time, all_day, multi_day, type, status, created_at, updated_at';
const EVENT_TAIL = new Set(['assignee', 'created_at', 'updated_at']);
app.get<{ Querystring: { start_date?: string; end_date?: string; page?: string; per_page?: string } }>('/api/v1/events', async (req, reply) => {
  const key = auth(req, reply, 'events:read');
  if (!key) return reply;
  const page = pageOf(req.query);
  const perPage = perPageOf(req.query);
  const range = [key.workspaceId, req.query.start_date ?? '0000-00-00', req.query.end_date ?? '9999-99-99'];
  // The page of events and their assignees (by UUID) in one statement.
  const limit = pageSql(page, perPage);
  const rows = await store.all(
    `select e.*, a.user_id as assignee from (select ${EVENT_COLUMNS} from events where workspace_id = ? and start_date >= ? and end_date <= ?
       order by created_at desc, id desc ${limit.sql}) e
     left join event_assignees a on a.workspace_id = e.workspace_id and a.event_id = e.id order by e.created_at desc, e.id desc, a.user_id`,
    [...range, ...limit.params],
  );
  const events: Row[] = [];
  let last: Row & { assignee_ids: unknown[] } = { assignee_ids: [] };
  for (const row of rows) {
    if (row.id !== last.id) {
      // The response's field order: assignee_ids before the timestamps.
      const r = copyWithout(row, EVENT_TAIL);
      last = Object.assign(r, { all_day: r.all_day === 1, multi_day: r.multi_day === 1, assignee_ids: [] as unknown[], created_at: row.created_at, updated_at: row.updated_at });
      events.push(last);
    }
    if (row.assignee !== null) last.assignee_ids.push(row.assignee);
  }
  const p = await pagination(events.length, page, perPage, () => countOf('select count(*) as n from events where workspace_id = ? and start_date >= ? and end_date <= ?', range));
  return send(reply, 200, { success: true, data: events, pagination: p });
});

// ---- the hub's quote page: token -> contact -> quote, drawn by the hub's own template ----
const VIEWS = new URL('../src/modules/hub/views/', import.meta.url).pathname;
const eta = new Eta({ views: VIEWS, autoEscape: true, cache: true });
const STATUS_LABELS: Record<string, string> = { awaiting_response: 'Awaiting your answer', accepted: 'Approved', declined: 'Declined', expired: 'Expired', archived: 'Archived' };
app.get<{ Params: { token: string; id: string } }>('/hub/:token/quotes/:id', async (req, reply) => {
  const { token, id } = req.params;
  const [r] = await store.all(
    // What the app's statement reads for any quote's page: the business's contact lines and logo, its time
    // zone (an approval's time) and whether the customer's own answer was the last change (a draft the
    // customer sent back is shown). A quote awaiting its answer, the only page served here, uses the first two.
    `select q.*, c.first_name as c_first, c.last_name as c_last, w.name as w_name, w.currency as w_currency, w.country as w_country,
       w.timezone as w_timezone, w.address as w_address, w.phone as w_phone, w.email as w_email, w.website as w_website, w.tax_number as w_tax_number, w.logo_key as w_logo_key,
       (select by_customer from quote_status_changes where workspace_id = q.workspace_id and quote_id = q.id order by id desc limit 1) as last_by_customer
     from hub_links l join contacts c on c.workspace_id = l.workspace_id and c.id = l.contact_id join workspaces w on w.id = l.workspace_id
     join quotes q on q.workspace_id = l.workspace_id and q.contact_id = l.contact_id and q.id = ?
     where l.token_hash = ? and l.expires_at > ?`,
    [positive(id), createHash('sha256').update(token).digest('hex'), now()],
  );
  // The bench's quote awaits its answer: no outcome to show, so no status comment to read
  // (a draft the customer sent back, whose page reads it, is not served here).
  if (r?.status !== 'awaiting_response') return reply.code(404).send('not found');
  const q = quoteOf(toNumber(r, ...PRICED)) as Row & { line_items: LineItem[]; discount: number; discount_unit: '%' | '$'; tax_rate: number; deposit: number; total: number; deposit_unit: '%' | '$' };
  const currency = workspaceCurrency({ currency: r.w_currency as string | null, country: r.w_country as string | null });
  const view = documentView(q, currency);
  const zero = formatMoney(0, currency);
  const html = eta.render('quote', {
    token,
    business: r.w_name,
    businessLines: businessLines({ address: r.w_address as string | null, phone: r.w_phone as string | null, email: r.w_email as string | null, website: r.w_website as string | null, tax_number: r.w_tax_number as string | null }),
    logo: r.w_logo_key ? `/files/public/${r.w_logo_key}` : null,
    contactName: `${r.c_first} ${r.c_last}`.trim(),
    id: q.id,
    number: q.number,
    name: q.name,
    status: STATUS_LABELS[String(q.status)] ?? q.status,
    showContents: true,
    items: view.lines,
    totals: { subtotal: view.subtotal, discount: view.discount || zero, tax: view.tax || zero, taxRate: view.taxRate || null, total: view.total },
    deposit: q.deposit ? (q.deposit_unit === '%' ? `${q.deposit}% (${formatMoney(fromCents(Math.round((totalCents(q.total) * q.deposit) / 100)), currency)})` : formatMoney(q.deposit, currency)) : zero,
    date: formatDate(q.date as string | null),
    message: q.message,
    paymentInstructions: q.payment_instructions,
    expireOn: formatDate(q.expire_on as string | null),
    open: true,
    outcome: null,
    base: `/hub/${encodeURIComponent(token)}`,
    error: null,
  });
  return reply.header('content-type', 'text/html; charset=utf-8').send(html);
});

// ---- Home (the app's dashboard, A2): the same statements as src/modules/home, as prepared statements ----
const HOME_EVENTS: Record<string, string> = {
  new_request: 'requests', request_updated: 'requests', request_deleted: 'requests',
  new_contact: 'contacts', contact_updated: 'contacts', contact_deleted: 'contacts',
  new_quote: 'quotes', quote_accepted: 'quotes', quote_updated: 'quotes', quote_deleted: 'quotes',
  new_job: 'jobs', job_updated: 'jobs', job_deleted: 'jobs',
  new_invoice: 'invoices', invoice_sent: 'invoices', invoice_paid: 'invoices', invoice_updated: 'invoices', invoice_deleted: 'invoices', payment_received: 'invoices',
  new_event: 'events', event_updated: 'events', event_deleted: 'events',
};
const monthStart = (date: string, back: number) => new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1 - back, 1)).toISOString().slice(0, 10);
app.get<{ Querystring: { activity_limit?: string } }>('/api/v1/home', async (req, reply) => {
  const h = req.headers.authorization;
  const key = h?.startsWith('Bearer ') ? keys.get(createHash('sha256').update(h.slice(7)).digest('hex')) : undefined;
  if (!key) return send(reply, 401, { success: false, error: 'Invalid API key' });
  const can = (resource: string) => key.scopes.includes(`${resource}:read`) || key.scopes.includes('read');
  const ws = key.workspaceId;
  const events = Object.keys(HOME_EVENTS).filter((e) => can(HOME_EVENTS[e]!));
  const limit = req.query.activity_limit === undefined ? 15 : Number(req.query.activity_limit);
  const [tz] = await store.all('select timezone from workspaces where id = ?', [ws]);
  const today = zonedDate(Date.now(), (tz?.timezone as string | null) ?? null);
  const count = async (sql: string, params: Params) => Number((await store.all(sql, params))[0]!.n);
  const [newRequests, awaiting, toInvoice, overdue, payments, latest] = await Promise.all([
    can('requests') ? count("select count(*) as n from requests where workspace_id = ? and status = 'new'", [ws]) : null,
    can('quotes') ? count("select count(*) as n from quotes where workspace_id = ? and status = 'awaiting_response'", [ws]) : null,
    can('jobs')
      ? count("select count(*) as n from jobs where workspace_id = ? and status = 'completed' and not exists (select id from invoices where invoices.workspace_id = ? and invoices.job_id = jobs.id)", [ws, ws])
      : null,
    can('invoices')
      ? store.all(
          "select count(*) as n, sum(cast(round(total * 100) as bigint) - amount_paid_cents) as due from invoices where workspace_id = ? and status in ('overdue', 'partially_paid') and (status = 'overdue' or due_date < ?)",
          [ws, today],
        )
      : null,
    can('invoices')
      ? store.all('select paid_on, sum(cents) as cents, sum(n) as n from payment_days where workspace_id = ? and paid_on >= ? group by paid_on', [
          ws,
          monthStart(today, 11),
        ])
      : null,
    events.length && limit
      ? store.all(`select event, payload, created_at from outbox where workspace_id = ? and event in (${events.map(() => '?').join(', ')}) order by id desc limit ?`, [ws, ...events, limit])
      : [],
  ]);
  type Payload = { data?: { id?: number; invoice_id?: number; number?: number; name?: string | null; title?: string | null; first_name?: string; last_name?: string; status?: string; created_by?: string | { id?: string } | null } };
  const activity: { event: string; at: unknown; resource: string; id: number; number: number | null; name: string | null; status: string | null; user: unknown }[] = [];
  const creators: string[] = [];
  for (const row of latest) {
    const data = (json(row.payload) as Payload | null)?.data ?? {};
    const event = String(row.event);
    const payment = event === 'payment_received';
    const id = payment ? data.invoice_id : data.id;
    if (typeof id !== 'number') continue;
    const contactName = event.includes('contact') ? `${data.first_name ?? ''} ${data.last_name ?? ''}`.trim() || null : null;
    const creator = typeof data.created_by === 'string' ? data.created_by : (data.created_by?.id ?? null);
    if (creator && !creators.includes(creator)) creators.push(creator);
    activity.push({
      event,
      at: row.created_at,
      resource: HOME_EVENTS[event]!,
      id,
      number: payment || typeof data.number !== 'number' ? null : data.number,
      name: payment ? null : (contactName ?? data.name ?? data.title ?? null),
      status: payment ? null : (data.status ?? null),
      user: creator,
    });
  }
  const users = new Map(
    (creators.length ? await store.all(`select user_id, first_name, last_name from users where workspace_id = ? and user_id in (${creators.map(() => '?').join(', ')})`, [ws, ...creators]) : []).map((u) => [
      u.user_id,
      u,
    ]),
  );
  for (const a of activity) {
    const u = a.user ? users.get(a.user) : undefined;
    a.user = u ? { id: u.user_id, first_name: u.first_name, last_name: u.last_name } : null;
  }
  const byMonth = new Map<string, { cents: number; n: number }>();
  for (const r of payments ?? []) {
    const m = byMonth.get(String(r.paid_on).slice(0, 7)) ?? { cents: 0, n: 0 };
    m.cents += Number(r.cents);
    m.n += Number(r.n);
    byMonth.set(String(r.paid_on).slice(0, 7), m);
  }
  const o = overdue?.[0];
  const data = {
    new_requests: newRequests,
    quotes_awaiting_response: awaiting,
    jobs_to_invoice: toInvoice,
    overdue_invoices: o ? { count: Number(o.n), amount_due: fromCents(Number(o.due ?? 0)) } : null,
    payments_by_month: payments
      ? Array.from({ length: 12 }, (_, i) => {
          const month = monthStart(today, 11 - i).slice(0, 7);
          const r = byMonth.get(month);
          return { month, amount: fromCents(Number(r?.cents ?? 0)), count: Number(r?.n ?? 0) };
        })
      : null,
    activity,
  };
  return send(reply, 200, { success: true, data });
});

console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
