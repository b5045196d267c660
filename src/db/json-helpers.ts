import { type AliasableExpression, type Expression, type Kysely, PostgresAdapter, type RawBuilder, type SelectQueryNode } from 'kysely';
import * as pgJson from 'kysely/helpers/postgres';
import * as sqliteJson from 'kysely/helpers/sqlite';
import type { Dialect } from './database.ts';
import { fromJson } from './json.ts';

// Kysely's JSON helpers, picked by dialect in this one place, so a related
// record or list is a subquery of the statement that reads its parent (one
// round trip). Both dialects hand the result back as JSON *text*: the pg pool
// keeps json as text (database.ts) and SQLite's json_object is text; and a
// SQLite JSON value loses its JSON-ness when it crosses a subquery boundary.
// So nesting is built inside one subquery (jsonBuild), and every JSON column
// of a result row is parsed by `parseJson`.

export type { Dialect };

/** A select query as an expression (what Kysely's helpers take; its own type is not exported). */
type SelectQueryBuilderExpression<O> = AliasableExpression<O> & { readonly isSelectQueryBuilder: true; toOperationNode(): SelectQueryNode };

/** JSON text whose parsed value is a T (a type tag only; the value is a string). */
export type JsonText<T> = string & { readonly __json?: T };

/** The dialect of a connection or transaction (as locks.ts reads it). */
export function dialectOf<T>(db: Kysely<T>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** The first row of the subquery as a JSON object, or null when it has none. */
export function jsonObjectFrom<O>(dialect: Dialect, expr: SelectQueryBuilderExpression<O>): RawBuilder<JsonText<O> | null> {
  const built = dialect === 'postgres' ? pgJson.jsonObjectFrom(expr) : sqliteJson.jsonObjectFrom(expr);
  return built.$castTo<JsonText<O> | null>();
}

/** The rows of the subquery as a JSON array, `[]` when it has none. */
export function jsonArrayFrom<O>(dialect: Dialect, expr: SelectQueryBuilderExpression<O>): RawBuilder<JsonText<O[]>> {
  const built = dialect === 'postgres' ? pgJson.jsonArrayFrom(expr) : sqliteJson.jsonArrayFrom(expr);
  return built.$castTo<JsonText<O[]>>();
}

type Built<O extends Record<string, Expression<unknown>>> = { [K in keyof O]: O[K] extends Expression<infer V> ? V : never };

/** A JSON object of expressions (json_build_object / json_object); nest these inside one subquery. */
export function jsonBuild<O extends Record<string, Expression<unknown>>>(dialect: Dialect, obj: O): RawBuilder<JsonText<Built<O>>> {
  const built = dialect === 'postgres' ? pgJson.jsonBuildObject(obj) : sqliteJson.jsonBuildObject(obj);
  return built.$castTo<JsonText<Built<O>>>();
}

/** The value of a JSON column of a result row (null stays null). */
export function parseJson<T>(text: JsonText<T> | null | undefined): T | null {
  return fromJson<T>(text);
}
