import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

// F243: better-sqlite3 by Node line. Its 12.x wrappers subclass node::ObjectWrap, whose
// destructor on Node 24 asks for the current Environment: a statement collected by a
// garbage collection that runs outside any JavaScript context (V8's own tasks) aborts
// the process ("Assertion failed: (env) != nullptr" under Statement::~Statement),
// within seconds of a fresh start's migrations. 13.x is built on Node-API, which has no
// such hook, but needs Node 22 and crashes on Node 20. Both are installed
// (`better-sqlite3-napi` is 13.x under another name, with prebuilt binaries); each
// process loads the one its Node can run. Same API, same SQLite file format.
const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

/** The better-sqlite3 `Database` class for this process's Node. */
export const SQLite: typeof BetterSqlite3 = require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
/** Which package `SQLite` came from. */
export const sqliteDriver = major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

// The types the two packages share, so that no other module names `better-sqlite3`
// (the lint refuses it: a value import of it would load 12.x on every Node).
export type SQLiteDatabase = BetterSqlite3.Database;
export type SQLiteStatement<P extends unknown[] = unknown[]> = BetterSqlite3.Statement<P>;
export type SQLiteRunResult = BetterSqlite3.RunResult;
