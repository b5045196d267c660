/**
 * A function that makes a row object from a row read as an array, compiled for the
 * statement's column names (F179, F195): one object literal, one allocation with a
 * fixed shape, where the drivers (better-sqlite3 through V8's API, pg by keyed stores
 * into a copy of an empty row) add the columns one at a time. The objects that decode
 * and serialize the rows are faster to read too. A name given twice keeps its last
 * value, as the drivers' objects do.
 */
export function rowObjects(names: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  return new Function('a', `return {${names.map((name, i) => `${JSON.stringify(name)}: a[${i}]`).join(', ')}};`) as (values: readonly unknown[]) => Record<string, unknown>;
}
