// What every command shares: option parsers, the database lifecycle and the
// one place output is written (docs/operator.md "Command line": with --json exactly
// one JSON object on stdout, errors on stderr).
import { InvalidArgumentError, Option } from 'commander';
import type { Kysely } from 'kysely';
import { loadConfig } from '../config.ts';
import { createDb, type Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { DB } from '../db/schema.ts';
import { findWorkspace } from '../modules/workspace/workspace.service.ts';

/** A failure the operator caused: one line on stderr, no stack trace. */
export class CliError extends Error {}

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

// main() swaps this for tests that run the program in-process.
let io: Io = processIo;
export const setIo = (next: Io) => {
  io = next;
};
export const currentIo = () => io;

/** What a command produced: the --json object and the readable rendering of it. */
export interface Output {
  json: Record<string, unknown>;
  text: string;
}

export function print(opts: { json?: boolean }, output: Output): void {
  io.out(opts.json ? `${JSON.stringify(output.json)}\n` : output.text.endsWith('\n') ? output.text : `${output.text}\n`);
}

/**
 * Opens DATABASE_URL, brings the schema up to date (so a fresh database works)
 * and closes it whatever happens. `applied` is what this run migrated.
 */
export async function withDatabase<T>(fn: (db: Kysely<DB>, applied: string[]) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let database: Database | undefined;
  try {
    database = createDb(config.databaseUrl);
    const applied = await migrate(database);
    return await fn(database.db, applied);
  } finally {
    await database?.close().catch(() => {});
  }
}

export async function requireWorkspace(db: Kysely<DB>, id: number) {
  const w = await findWorkspace(db, id);
  if (!w) throw new CliError(`workspace ${id} not found`);
  return w;
}

// Ids are PostgreSQL `integer`s: anything larger is an id that cannot exist.
const MAX_ID = 2_147_483_647;

export function parseId(value: string, what = 'id'): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${what} must be a positive integer`);
  const n = Number(value.trim());
  if (n < 1 || n > MAX_ID) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return n;
}

export const workspaceOption = () => new Option('--workspace <id>', 'workspace id').argParser((v: string) => parseId(v, 'workspace id')).makeOptionMandatory();

export const jsonOption = () => new Option('--json', 'print one JSON object on stdout');

/** Variadic KEY=VALUE arguments -> an object; a later KEY wins. The value may be empty or hold '='. */
export function parsePair(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError(`"${value}" is not KEY=VALUE`);
  return { ...(previous ?? {}), [value.slice(0, at).trim()]: value.slice(at + 1) };
}

/** "a, b,,c" -> ["a", "b", "c"]; an empty list is an error (a key with no scopes is useless). */
export function parseList(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw new InvalidArgumentError('needs at least one value');
  return [...new Set(items)];
}

