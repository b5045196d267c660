import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directReadOf } from './database.ts';
import type { DB } from './schema.ts';

/**
 * Statements built and compiled once per *shape*, then run with new values (F165):
 * the generalisation of `prepared()` to statements whose form depends on which
 * values are present (a list's filters, its search, its sort; the references a
 * write names). The shape of some values is what the statement's form can depend
 * on: which keys are absent (undefined), null, `''` or `0` (a builder's
 * `if (q.x)`), each boolean, the length of each array; every other string and
 * number is a *leaf*, a parameter of the compiled statement.
 *
 * At the first run of a shape the builder receives sentinels in place of the
 * leaves; each is found among the compiled statement's parameters, so later runs
 * only put their leaves in those slots. A builder must therefore use a leaf as
 * given (no arithmetic, no text functions: transform it before), and branch only
 * on presence, `''`/`0`, booleans and array lengths. A leaf the statement does not
 * carry as it was given makes the shape uncacheable: that shape is then built and
 * compiled at every run, as before (correct, only slower).
 */

export type Values = Record<string, unknown>;

let nextSentinel = 0;
let nextName = 0;
const TEXT_SENTINEL = '\u0000fieldwork-shape-';
const NUMBER_SENTINEL = -1e15;

/**
 * The shape key of `values` (one object or several), appending its leaves to
 * `leaves`; undefined when a value has no shape to key on (an expression object
 * such as Kysely's sql``: two of them print alike): build those at every run.
 */
export function shapeOf(parts: readonly Values[], leaves: unknown[]): string | undefined {
  let key = '';
  for (const part of parts) {
    for (const name in part) {
      const kind = kindOf(part[name], leaves);
      if (kind === undefined) return undefined;
      key += `${name}${kind};`;
    }
    key += '|';
  }
  return key;
}

function kindOf(v: unknown, leaves: unknown[]): string | undefined {
  if (v === undefined) return 'u';
  if (v === null) return 'n';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') {
    if (v === 0 || !Number.isFinite(v)) return `=${v}`;
    leaves.push(v);
    return '#';
  }
  if (typeof v === 'string') {
    if (v === '') return "''";
    leaves.push(v);
    return '$';
  }
  if (Array.isArray(v)) {
    let k = '[';
    for (const x of v) {
      const kind = kindOf(x, leaves);
      if (kind === undefined) return undefined;
      k += kind;
    }
    return `${k}]`;
  }
  // A plain object or a bigint is part of the shape as its JSON; any other object is opaque.
  if (typeof v === 'object' && Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return undefined;
  return `=${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x))}`;
}

/** `values` with every leaf replaced by a new sentinel, in the order shapeOf lists them. */
function withSentinels<P extends readonly object[]>(parts: P, sentinels: unknown[]): P {
  const swap = (v: unknown): unknown => {
    if (typeof v === 'number' && v !== 0 && Number.isFinite(v)) {
      const s = NUMBER_SENTINEL - ++nextSentinel;
      sentinels.push(s);
      return s;
    }
    if (typeof v === 'string' && v !== '') {
      const s = `${TEXT_SENTINEL}${++nextSentinel}`;
      sentinels.push(s);
      return s;
    }
    if (Array.isArray(v)) return v.map(swap);
    return v;
  };
  const swapped: Values[] = parts.map((part) => {
    const out: Values = {};
    for (const [name, value] of Object.entries(part)) out[name] = swap(value);
    return out;
  });
  return swapped as readonly object[] as P;
}

/** A compiled statement and, for each of its parameters, the leaf it takes (-1: its own constant). */
export interface ShapedStatement<O> {
  compiled: CompiledQuery<O>;
  slots: Int32Array;
  name: string;
}

const looksLikeSentinel = (p: unknown) =>
  (typeof p === 'string' && p.toLowerCase().includes(TEXT_SENTINEL.slice(1))) || (typeof p === 'number' && (Number.isNaN(p) || p <= NUMBER_SENTINEL));

/**
 * Builds the statements of one shape with sentinels and maps their parameters to
 * leaves; undefined when a leaf is not carried as given (see above).
 */
export function compileShape<P extends readonly object[]>(
  parts: P,
  build: (sentinelParts: P) => Compilable<unknown>[],
): ShapedStatement<unknown>[] | undefined {
  const sentinels: unknown[] = [];
  const swapped = withSentinels(parts, sentinels);
  const statements = build(swapped);
  const used = new Set<number>();
  const out: ShapedStatement<unknown>[] = [];
  for (const statement of statements) {
    const compiled = statement.compile();
    const slots = new Int32Array(compiled.parameters.length);
    for (let i = 0; i < compiled.parameters.length; i++) {
      const p = compiled.parameters[i];
      const leaf = sentinels.indexOf(p);
      if (leaf < 0 && looksLikeSentinel(p)) return undefined; // a leaf transformed by the builder
      slots[i] = leaf;
      if (leaf >= 0) used.add(leaf);
    }
    out.push({ compiled, slots, name: `fieldwork_shaped_${++nextName}` });
  }
  // The first statement carries every leaf (the others are derived from it).
  if (used.size !== sentinels.length) return undefined;
  return out;
}

/** Runs a shaped statement with these leaves (in shapeOf's order); outside a transaction by the direct read, as prepared(). */
export async function runShaped<O>(db: Kysely<DB>, statement: ShapedStatement<O>, leaves: readonly unknown[]): Promise<O[]> {
  const { compiled, slots } = statement;
  const parameters = new Array(slots.length);
  for (let i = 0; i < slots.length; i++) parameters[i] = slots[i] < 0 ? compiled.parameters[i] : leaves[slots[i]];
  // Writes (inserts, updates) go through Kysely's driver: the direct path reads only.
  const direct = compiled.query.kind === 'SelectQueryNode' ? directReadOf(db) : undefined;
  if (direct) return (await direct(statement.name, compiled.sql, parameters)) as O[];
  return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
}

/** The shapes of one statement family, per dialect (a transaction shares its database's adapter), at most `max` of each. */
export class ShapeCache<E> {
  private readonly byAdapter = new WeakMap<object, Map<string, E | null>>();
  constructor(private readonly max = 256) {}

  /** The entry of `key` on `db`'s dialect, made by `make` the first time (null: uncacheable, built at every run). */
  get(db: Kysely<DB>, key: string, make: () => E | undefined): E | null {
    const adapter = db.getExecutor().adapter;
    let shapes = this.byAdapter.get(adapter);
    if (!shapes) {
      shapes = new Map();
      this.byAdapter.set(adapter, shapes);
    }
    const found = shapes.get(key);
    if (found !== undefined) return found;
    const made = make() ?? null;
    // Past `max` shapes (hostile query strings: a status list of every length) new ones are not kept.
    if (shapes.size < this.max) shapes.set(key, made);
    return made;
  }
}

/**
 * One statement compiled once per shape of its values (a write's reference loader:
 * which references the body names): `build` as for listOf (src/db/list-query.ts).
 */
export function shapedQuery<V extends object, O>(build: (db: Kysely<DB>, values: V) => Compilable<O>) {
  const shapes = new ShapeCache<ShapedStatement<O>>();
  return async (db: Kysely<DB>, values: V): Promise<O[]> => {
    const leaves: unknown[] = [];
    const key = shapeOf([values as Values], leaves);
    const statement = key === undefined ? null : shapes.get(db, key, () => compileShape([values] as const, ([v]) => [build(db, v)])?.[0] as ShapedStatement<O> | undefined);
    if (!statement) return (await db.executeQuery<O>(build(db, values).compile())).rows;
    return runShaped(db, statement, leaves);
  };
}
