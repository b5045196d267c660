import type { Selectable } from 'kysely';
import { fromJson, toJson } from './json.ts';
import type { DB } from './schema.ts';

/** The row an API object encodes to: JSON keys become text, boolean keys 0/1, the rest stay as they are. */
export type Encoded<I, J extends PropertyKey, B extends PropertyKey> = {
  [K in keyof I]: K extends J ? (null extends I[K] ? string | null : string) : K extends B ? (null extends I[K] ? number | null : number) : I[K];
};

/**
 * The typed codec of one table: converts between API objects and rows, JSON
 * columns to text and back, booleans to 0/1 and back. Only keys present in the
 * input are written, which makes the same encoder serve partial updates (SPEC
 * convention 6). `encode` returns exactly the columns it was given,
 * with their row types, so `db.insertInto(table).values({ ...codec.encode(body), workspace_id, ... })`
 * and `.set(codec.encode(body))` are checked by Kysely against the table's
 * `Insertable`/`Updateable` types: a missing required column or a wrongly typed
 * value fails `tsc`, not the database.
 *
 *     export const serviceCodec = tableCodec<Service>()('services', { bool: ['taxable'] });
 *
 * (Curried so the API type is given and the table and key lists are inferred.)
 */
export function tableCodec<Api extends object>() {
  return <T extends keyof DB, J extends keyof Api & keyof DB[T] = never, B extends keyof Api & keyof DB[T] = never>(
    _table: T,
    spec: { json?: readonly J[]; bool?: readonly B[]; omit?: readonly (keyof DB[T] & string)[] },
  ) => {
    const json = new Set<PropertyKey>(spec.json ?? []);
    const bool = new Set<PropertyKey>(spec.bool ?? []);
    const kinds = new Map<string, Kind>();
    for (const k of json) kinds.set(String(k), JSON_COLUMN);
    for (const k of bool) kinds.set(String(k), BOOL_COLUMN);
    for (const k of spec.omit ?? []) kinds.set(k, OMITTED);
    const columns: Columns = { json: [...json].map(String), bool: [...bool].map(String), omitted: [...(spec.omit ?? [])], kinds, decoders: new Decoders() };
    return {
      encode<I extends Partial<Api>>(input: I): Encoded<I, J, B> {
        return encodeRow(input, json, bool) as Encoded<I, J, B>;
      },
      /**
       * The row (or the table's columns a query selected) read back as the API object:
       * JSON parsed, 0/1 as booleans, without the table's `omit` columns nor `extra`
       * (the columns a query joined in, which its caller reads from the row itself).
       */
      decode(row: Partial<Selectable<DB[T]>>, extra?: ReadonlySet<string>): Api {
        return decodeRow<Api>(row, columns, extra);
      },
    };
  };
}

// The one place values change shape; the types above say what comes out.
function encodeRow(input: object, json: Set<PropertyKey>, bool: Set<PropertyKey>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    out[k] = json.has(k) ? toJson(v) : bool.has(k) ? (v === null ? null : v ? 1 : 0) : v;
  }
  return out;
}

type Kind = typeof JSON_COLUMN | typeof BOOL_COLUMN | typeof OMITTED;
/** A table's columns that decoding converts or leaves out, by kind and as one map. */
interface Columns {
  json: readonly string[];
  bool: readonly string[];
  omitted: readonly string[];
  kinds: Map<string, Kind>;
  decoders: Decoders;
}
const JSON_COLUMN = 1;
const BOOL_COLUMN = 2;
const OMITTED = 3;

// The row is copied with a spread, which V8 does in one step for the row's whole shape,
// then its JSON and boolean columns are converted on the copy: 12 against 25 µs for a
// page of 25 contacts, where adding the keys one by one to `{}` grew the copy's
// property store as it went. (A rest pattern, `const { a, ...rest } = row`, is slower
// still.) A row that holds a column to leave out takes a decoder compiled for its
// columns (Decoders, below): deleting from the copy would turn it into a dictionary,
// slow for everything that reads it after.
function decodeRow<Api>(row: object, codec: Columns, extra: ReadonlySet<string> | undefined): Api {
  const source = row as Record<string, unknown>;
  if (extra?.size || holdsAny(source, codec.omitted)) return codec.decoders.decode<Api>(source, codec.kinds, extra);
  const out: Record<string, unknown> = { ...source };
  for (const k of codec.json) {
    const v = out[k];
    if (v !== undefined) out[k] = fromJson(v as string | null);
  }
  for (const k of codec.bool) {
    const v = out[k];
    if (v !== undefined && v !== null) out[k] = Boolean(v);
  }
  return out as Api;
}

function holdsAny(row: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const k of keys) if (row[k] !== undefined) return true;
  return false;
}

function decodeByKey<Api>(source: Record<string, unknown>, kinds: Map<string, Kind>, extra: ReadonlySet<string> | undefined): Api {
  const out: Record<string, unknown> = {};
  for (const k in source) {
    const kind = kinds.get(k);
    if (kind === OMITTED || extra?.has(k)) continue;
    const v = source[k];
    out[k] = kind === JSON_COLUMN ? fromJson(v as string | null) : kind === BOOL_COLUMN && v !== null ? Boolean(v) : v;
  }
  return out as Api;
}

/** Decoders kept per `extra` set and per column order. A table's statements are few; past this, the loop. */
const ORDERS_PER_EXTRA = 8;
type Build = (row: Record<string, unknown>, parse: typeof fromJson) => Record<string, unknown>;
interface Decoder {
  keys: readonly string[];
  build: Build;
}

/**
 * The rows of one statement have the same columns in the same order: for a row that
 * leaves columns out (a joined read's `extra`, a table's `omit`), the decoder compiled
 * for that order writes the object as one literal, a fixed shape made at once, where
 * adding the kept keys one by one to `{}` cost 16 against 11 µs for a quote with its
 * joins. A row is checked against the decoder's order, key by key, before it is used.
 */
class Decoders {
  private readonly byExtra = new WeakMap<ReadonlySet<string>, Decoder[]>();
  private readonly noExtra: Decoder[] = [];

  decode<Api>(source: Record<string, unknown>, kinds: Map<string, Kind>, extra: ReadonlySet<string> | undefined): Api {
    let decoders = extra ? this.byExtra.get(extra) : this.noExtra;
    if (!decoders) {
      decoders = [];
      this.byExtra.set(extra!, decoders);
    }
    for (const d of decoders) if (sameKeys(source, d.keys)) return d.build(source, fromJson) as Api;
    const keys = Object.keys(source);
    // A literal's "__proto__" key would set the prototype: no column is named so, but such a row takes the loop.
    if (decoders.length >= ORDERS_PER_EXTRA || keys.includes('__proto__')) return decodeByKey<Api>(source, kinds, extra);
    const d = compileDecoder(keys, kinds, extra);
    decoders.push(d);
    return d.build(source, fromJson) as Api;
  }
}

function sameKeys(row: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in row) if (keys[i++] !== k) return false;
  return i === keys.length;
}

/** decodeByKey's conversions for one order of columns, as one object literal. */
function compileDecoder(keys: readonly string[], kinds: Map<string, Kind>, extra: ReadonlySet<string> | undefined): Decoder {
  const fields: string[] = [];
  for (const k of keys) {
    const kind = kinds.get(k);
    if (kind === OMITTED || extra?.has(k)) continue;
    const v = `row[${JSON.stringify(k)}]`;
    fields.push(`${JSON.stringify(k)}: ${kind === JSON_COLUMN ? `parse(${v})` : kind === BOOL_COLUMN ? `${v} === null ? null : Boolean(${v})` : v}`);
  }
  return { keys, build: new Function('row', 'parse', `return { ${fields.join(', ')} };`) as Build };
}
