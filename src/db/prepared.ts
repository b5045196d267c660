import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directReadOf } from './database.ts';
import type { DB } from './schema.ts';

// `?`: the value may be null (a reference a write may not name).
type Kind = 'number' | 'string' | 'number?' | 'string?';
type ValueOf<T extends Kind> = T extends 'number' ? number : T extends 'string' ? string : T extends 'number?' ? number | null : string | null;
export type Params<S extends Record<string, Kind>> = { [K in keyof S]: ValueOf<S[K]> };

// Sentinels no real parameter can equal: ids are positive, and no stored text starts with U+0000.
let nextSentinel = 0;
let nextStatement = 0;
const sentinel = (kind: Kind): number | string => (kind.startsWith('number') ? -1e15 - ++nextSentinel : `\u0000fieldwork-param-${++nextSentinel}`);

/**
 * A query built and compiled once per dialect, then run with new parameter values:
 * building and compiling a Kysely query costs more than running a small one, so
 * the hot reads (authentication, single GETs) use this. `build` receives sentinel
 * values in place of the parameters; each is found in the compiled query and
 * replaced at every run. Runs on the given `db`, a transaction included.
 */
export function prepared<S extends Record<string, Kind>, O>(
  shape: S,
  build: (db: Kysely<DB>, p: Params<S>) => Compilable<O>,
): (db: Kysely<DB>, values: Params<S>) => Promise<O[]> {
  const names = Object.keys(shape) as (keyof S & string)[];
  const sentinels = Object.fromEntries(names.map((n) => [n, sentinel(shape[n])])) as Params<S>;
  // One compiled form per dialect: a transaction shares its database's adapter.
  const byAdapter = new WeakMap<object, { compiled: CompiledQuery<O>; slots: ((keyof S & string) | undefined)[] }>();
  const name = `fieldwork_prepared_${++nextStatement}`;
  const compile = (db: Kysely<DB>) => {
    const compiled = build(db, sentinels).compile();
    const slots = compiled.parameters.map((value) => names.find((n) => sentinels[n] === value));
    for (const n of names) if (!slots.includes(n)) throw new Error(`prepared query: parameter ${n} is not used`);
    const entry = { compiled, slots };
    byAdapter.set(db.getExecutor().adapter, entry);
    return entry;
  };
  return async (db, values) => {
    const { compiled, slots } = byAdapter.get(db.getExecutor().adapter) ?? compile(db);
    const parameters = compiled.parameters.map((value, i) => {
      const slot = slots[i];
      return slot === undefined ? value : values[slot];
    });
    // Outside a transaction the read skips Kysely's driver (database.ts, DirectRead).
    const direct = compiled.query.kind === 'SelectQueryNode' ? directReadOf(db) : undefined;
    if (direct) return (await direct(name, compiled.sql, parameters)) as O[];
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
}
