import fs from 'node:fs';
import path from 'node:path';
import { SQLite, type SQLiteDatabase } from './sqlite-driver.ts';
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect } from 'kysely';
import { createRequire } from 'node:module';
import type { DB } from './schema.ts';
import { rowObjects } from './row-objects.ts';
import { kyselyStatement, type RowReader, rowReader } from './sqlite-rows.ts';
import { Checkpoints } from './checkpoints.ts';

// pg loads only for a postgres:// URL, so an SQLite server does not carry it in memory.
const require = createRequire(import.meta.url);
const loadPg = (): typeof import('pg') => require('pg');

export type Dialect = 'sqlite' | 'postgres';

/**
 * Rows (or ids) per statement in set-based reads and writes (the daily run's events):
 * at up to 6 parameters a row, every statement stays under SQLite's 32,766.
 */
export const BULK_ROWS = 5000;

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** The DATABASE_URL it was opened with (a LISTEN connection opens its own). */
  url: string;
  /** SQLite's checkpoints off the API's thread, when createDb was asked for them (F200). */
  checkpoints?: Checkpoints;
  close(): Promise<void>;
}

/**
 * Runs a compiled read outside Kysely's driver: on SQLite a second connection
 * that only reads (WAL: it sees every committed write, never a transaction in
 * progress on the writer), on PostgreSQL a named statement on the pool (parsed
 * and planned once per connection). Only the root handle has one; a transaction
 * does not, so its reads stay inside it.
 */
export type DirectRead = (name: string, sql: string, parameters: readonly unknown[]) => Promise<unknown[]>;
const directReads = new WeakMap<Kysely<DB>, DirectRead>();
export const directReadOf = (db: Kysely<DB>): DirectRead | undefined => directReads.get(db);

export interface DbOptions {
  /** Called with the SQL of every statement run (tests count round trips with it). */
  onQuery?: (sql: string) => void;
  /**
   * SQLite (a file): checkpoints in a thread of their own while the process writes
   * (src/db/checkpoints.ts). The API's server asks for it; one-shot commands do not.
   */
  checkpointThread?: boolean;
}

/** `sqlite:<path>`, `sqlite::memory:` or `postgres://...`. */
export function createDb(url: string, { onQuery, checkpointThread = false }: DbOptions = {}): Database {
  const log = onQuery && ((event: LogEvent) => onQuery(event.query.sql));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pg = loadPg();
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      // While the server is down or unreachable a request fails (503) after this
      // instead of waiting for a connection without end.
      connectionTimeoutMillis: 5_000,
      // JSON columns come back as text on both dialects, parsed in one place (json.ts);
      // int8 (count(*)) as a JS number: our counts and ids stay far below 2^53.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
          if (oid === 114 || oid === 3802) return (v: string) => v;
          if (oid === 20) return (v: string) => Number(v);
          return pg.types.getTypeParser(oid, format);
        }) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client's connection can drop (a restart, a failover, a dropped test
    // database): the pool replaces it; unhandled, the error would end the process.
    pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));
    // A connection that drops while checked out (a request mid-transaction during a
    // restart) fails its query, which the request turns into a 503, and also emits
    // 'error' on its client, which pg-pool only listens for while the client is idle:
    // without this listener that event would end the process. The pool discards the
    // broken client when it is released.
    pool.on('connect', (client) => {
      client.on('error', () => {});
      namedStatements(client);
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log });
    // Rows read as arrays and made objects by a function compiled per statement (F195), as on SQLite.
    const builders = new Map<string, (values: readonly unknown[]) => Record<string, unknown>>();
    directReads.set(db, async (name, text, values) => {
      onQuery?.(text);
      const result = await pool.query<unknown[]>({ name, text, values: values as unknown[], rowMode: 'array' });
      let build = builders.get(text);
      if (!build) {
        build = rowObjects(result.fields.map((f) => f.name));
        builders.set(text, build);
      }
      const rows = new Array<Record<string, unknown>>(result.rows.length);
      for (let i = 0; i < rows.length; i++) rows[i] = build(result.rows[i]!);
      return rows;
    });
    return { db, dialect: 'postgres', url, close: () => db.destroy() };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`cache_size = ${CACHE_SIZE}`);
    const checkpoints = checkpointThread && file !== ':memory:' ? new Checkpoints(file, sqlite) : undefined;
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, checkpoints) }), log });
    if (file === ':memory:') return { db, dialect: 'sqlite', url, close: () => db.destroy() };
    const reader = new SQLite(file);
    reader.pragma('busy_timeout = 5000');
    reader.pragma('query_only = 1');
    reader.pragma(`cache_size = ${CACHE_SIZE}`);
    const statements = new Map<string, RowReader>();
    directReads.set(db, async (_name, text, parameters) => {
      onQuery?.(text);
      let read = statements.get(text);
      if (!read) {
        read = rowReader(reader.prepare(text));
        statements.set(text, read);
      }
      return read(parameters);
    });
    return {
      db,
      dialect: 'sqlite',
      url,
      checkpoints,
      close: async () => {
        await checkpoints?.close();
        await db.destroy();
        reader.close();
      },
    };
  }
  throw new Error(`DATABASE_URL: "${url}" is neither sqlite:<path> nor postgres://...`);
}

// Each SQLite connection's page cache (negative: in KiB): SQLite's own default, 2 MB.
// better-sqlite3 builds SQLite with 16 MB a connection, and under writes the writer's
// cache filled up: the process's malloc heap grew from 10 to 26 MB (F183). A page that
// is not cached stays in the operating system's file cache, a read() away.
const CACHE_SIZE = -2000;

// PostgreSQL parses and plans an unnamed statement at every run; a named one once per
// connection (then runs its plan). Kysely sends every query unnamed, so each client of
// the pool names the statements it is given: SELECT/INSERT/UPDATE/DELETE/WITH of at most
// NAMED_MAX_PARAMS parameters (bulk writes vary in shape and would only fill the cache),
// the first NAMED_MAX distinct texts of the process. Measured on the search and list
// pages, where planning cost as much as running.
const NAMED_MAX = 1000;
const NAMED_MAX_PARAMS = 64;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
const statementNames = new Map<string, string>();
function statementName(text: string, values: unknown[]): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < NAMED_MAX && values.length <= NAMED_MAX_PARAMS && NAMEABLE.test(text)) {
    name = `fieldwork_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}
function namedStatements(client: object): void {
  const query = Reflect.get(client, 'query') as (...args: unknown[]) => unknown;
  Reflect.set(client, 'query', (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) ? statementName(text, values) : undefined;
    return name ? query.call(client, { name, text, values }, ...args.slice(2)) : query.apply(client, args);
  });
}

/**
 * Kysely prepares every query anew; preparing costs more than running a small
 * one. Statements are reused by SQL text (Kysely runs each synchronously, so one
 * statement is never used twice at once). A statement that writes wakes the
 * checkpoints' task, when there is one.
 */
function withStatementCache(sqlite: SQLiteDatabase, checkpoints: Checkpoints | undefined, max = 500): SQLiteDatabase {
  const cache = new Map<string, ReturnType<typeof kyselyStatement>>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        // Native methods must run on the real handle, not on the proxy.
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (text: string) => {
        // Kysely opens transactions with a deferred BEGIN. In WAL mode a deferred
        // transaction that read first and then writes fails at once with SQLITE_BUSY
        // when another connection (the CLI, a worker process) wrote meanwhile; the busy
        // timeout is not applied. Ours write, so they take the write lock up front
        // (BEGIN IMMEDIATE) and wait for it instead.
        const source = text === 'begin' ? 'begin immediate' : text;
        let stmt = cache.get(source);
        if (!stmt) {
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
          stmt = kyselyStatement(prepare(source));
          cache.set(source, stmt);
        }
        if (!stmt.reader) checkpoints?.wake(); // a write (or its BEGIN): the checkpoints' task runs
        return stmt;
      };
    },
  });
}

/** The database's own error for a broken foreign key (D12: a contact still referenced). */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

// Connection-level failures (PostgreSQL restarting, unreachable, or refusing new
// sessions while starting or stopping; SQLite's lock wait running out): the request
// did not happen and can be retried, so the API answers 503, not 500.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', 'SQLITE_BUSY']);
const UNAVAILABLE_TEXT = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  const e = err as { code?: unknown; message?: unknown };
  return (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) || (typeof e?.message === 'string' && UNAVAILABLE_TEXT.test(e.message));
}
