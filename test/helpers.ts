import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createDb, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import type { DB } from '../src/db/schema.ts';
import { createKey, type KeyType } from '../src/modules/keys/keys.service.ts';
import { addUser, type Role } from '../src/modules/users/users.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { hashToken } from '../src/kernel/tokens.ts';

export const backend = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh database for one test file: a new SQLite file, or a PostgreSQL clone of the migrated template. */
export async function testDatabase(): Promise<{ database: Database; url: string; queries: string[]; drop: () => Promise<void> }> {
  // Every statement the app runs, in order: tests empty it and count round trips.
  const queries: string[] = [];
  const onQuery = (sql: string) => {
    queries.push(sql);
  };
  if (backend === 'postgres') {
    const base = process.env.TEST_POSTGRES_URL!;
    const name = `fieldwork_t${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database "${name}" template "${process.env.TEST_PG_TEMPLATE}"`);
    await admin.end();
    const u = new URL(base);
    u.pathname = `/${name}`;
    const url = u.toString();
    const database = createDb(url, { onQuery });
    return {
      database,
      url,
      queries,
      drop: async () => {
        await database.close().catch(() => {});
        const a = new pg.Client({ connectionString: base });
        await a.connect();
        await a.query(`drop database if exists "${name}" with (force)`);
        await a.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-test-'));
  const url = `sqlite:${path.join(dir, 'test.db')}`;
  const database = createDb(url, { onQuery });
  await migrate(database);
  queries.length = 0;
  return {
    database,
    url,
    queries,
    drop: async () => {
      await database.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  db: Kysely<DB>;
  database: Database;
  config: Config;
  url: string;
  /** The SQL of every statement run since the last `queries.length = 0`. */
  queries: string[];
  close: () => Promise<void>;
}

/** One app and database per test file; close it in `after`. */
export async function buildTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const { database, url, queries, drop } = await testDatabase();
  const config = loadConfig({ PUBLIC_URL: 'http://fieldwork.test', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...env });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  return {
    app,
    db: database.db,
    database,
    config,
    url,
    queries,
    close: async () => {
      await app.close();
      await drop();
    },
  };
}

/**
 * The plan the database makes for a statement (literal values, no parameters): the
 * detail lines of SQLite's EXPLAIN QUERY PLAN, or PostgreSQL's EXPLAIN, asked not to
 * prefer a sequential scan (a test's tables are small and have no statistics).
 */
export async function planOf(db: Kysely<DB>, statement: string): Promise<string> {
  if (backend === 'postgres') {
    return db.connection().execute(async (conn) => {
      await sql`set enable_seqscan = off`.execute(conn);
      const r = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(statement)}`.execute(conn);
      await sql`reset enable_seqscan`.execute(conn);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    });
  }
  return (await sql<{ detail: string }>`explain query plan ${sql.raw(statement)}`.execute(db)).rows.map((x) => x.detail).join('\n');
}

/**
 * The rate limiters count in fixed windows aligned to the epoch (D18). A test that counts
 * up to a limit calls this first: when the current window ends within `needMs`, it waits
 * for the next one, so all its requests fall in one window.
 */
export async function withinOneWindow(windowMs: number, needMs = 5_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 5));
}

let seq = 0;

/** A workspace with its owner and a General key (scopes read, write). */
export async function seedWorkspace(db: Kysely<DB>, name = `Acme ${++seq}`) {
  const { workspace, owner } = await createWorkspace(db, {
    name,
    currency: 'usd',
    owner: { email: `owner${seq}@${workspace_domain(name)}`, first_name: 'Olive', last_name: 'Owner' },
  });
  const key = await createKey(db, { workspaceId: workspace.id, type: 'general' });
  return { workspace, owner, token: key.token, keyId: key.id };
}
const workspace_domain = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.test`;

export async function seedUser(db: Kysely<DB>, workspaceId: number, role: Role = 'member', email = `u${++seq}@example.test`) {
  return addUser(db, workspaceId, { email, first_name: `First${seq}`, last_name: `Last${seq}`, role });
}

export async function keyFor(db: Kysely<DB>, workspaceId: number, type: KeyType, scopes?: string[], extra: { userId?: string | null; legacy?: boolean } = {}) {
  return (await createKey(db, { workspaceId, type, scopes, ...extra })).token;
}

export interface Res {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A small HTTP client over inject() with a bearer token. */
export function client(app: FastifyInstance, token?: string) {
  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Res> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
    });
    let body: unknown = res.body;
    try {
      body = res.json();
    } catch {}
    return { status: res.statusCode, body, headers: res.headers };
  };
  return {
    get: (url: string, headers?: Record<string, string>) => call('GET', url, undefined, headers),
    post: (url: string, payload?: unknown, headers?: Record<string, string>) => call('POST', url, payload ?? {}, headers),
    put: (url: string, payload?: unknown, headers?: Record<string, string>) => call('PUT', url, payload ?? {}, headers),
    patch: (url: string, payload?: unknown, headers?: Record<string, string>) => call('PATCH', url, payload ?? {}, headers),
    delete: (url: string, headers?: Record<string, string>) => call('DELETE', url, undefined, headers),
  };
}
export type Client = ReturnType<typeof client>;

/** A workspace's outbox rows, oldest first, payloads parsed: what a write emitted (D16). */
export async function outboxEvents(db: Kysely<DB>, workspaceId: number) {
  const rows = await db.selectFrom('outbox').selectAll().where('workspace_id', '=', workspaceId).orderBy('id').execute();
  return rows.map((r) => ({ event: r.event, ...(JSON.parse(r.payload) as { data: { id: number } & Record<string, unknown> }) }));
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `fieldwork ...args` binary against a database, as an operator would. */
export function spawnCli(url: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const root = path.resolve(import.meta.dirname, '..');
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin', 'fieldwork.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: url, ...env } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npm start` as an operator runs it, on the test's database; resolves with its address. */
export async function startServer(url: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const root = path.resolve(import.meta.dirname, '..');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1', WORKER: 'off', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const base = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    lines.on('line', (line) => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(line);
      if (m) resolve(m[1]);
    });
  });
  return { child, base };
}

/**
 * Copies row `id` of `table` `count - 1` times in one INSERT ... SELECT (numbers
 * 2..count), for tests and benches that need thousands of documents fast.
 */
export async function copyRows(db: Kysely<DB>, dialect: 'sqlite' | 'postgres', table: 'invoices' | 'quotes' | 'jobs', id: number, count: number): Promise<void> {
  const series =
    dialect === 'postgres'
      ? sql`generate_series(2, ${count}) as n(i)`
      : sql`(with recursive n(i) as (select 2 union all select i + 1 from n where i < ${count}) select i from n) as n`;
  const columns = (await sql<Record<string, unknown>>`select * from ${sql.table(table)} where id = ${id}`.execute(db)).rows[0];
  const list = sql.join(Object.keys(columns).filter((c) => c !== 'id' && c !== 'number').map((c) => sql.ref(c)));
  await sql`insert into ${sql.table(table)} (${list}, number) select ${list}, n.i from ${sql.table(table)}, ${series} where ${sql.ref(`${table}.id`)} = ${id}`.execute(db);
}

/**
 * A stand-in for a signed-in owner's or admin's session until sessions exist on
 * this branch: a key row holding the session-only scopes (SESSION_ONLY_SCOPES,
 * src/http/auth.ts) beside `read` and `write`. No key can be created with them
 * (createKey refuses them), so it is written straight into the table.
 */
export async function ownerSessionToken(db: Kysely<DB>, workspaceId: number, userId?: string): Promise<string> {
  const ws = await db.selectFrom('workspaces').select('hash').where('id', '=', workspaceId).executeTakeFirstOrThrow();
  const user = userId ?? (await db.selectFrom('users').select('user_id').where('workspace_id', '=', workspaceId).where('role', '=', 'owner').executeTakeFirstOrThrow()).user_id;
  const token = `wk_${ws.hash}.${randomBytes(32).toString('hex')}`;
  const at = new Date().toISOString();
  await db
    .insertInto('api_keys')
    .values({ workspace_id: workspaceId, type: 'general', scopes: JSON.stringify(['read', 'write', 'team:manage', 'keys:manage']), user_id: user, name: 'session stand-in', token_hash: hashToken(token), legacy: 0, created_at: at, updated_at: at })
    .execute();
  return token;
}
