import { BinaryOperationNode, ColumnNode, type Kysely, OperatorNode, type RawBuilder, ReferenceNode, type SelectQueryBuilder, sql, TableNode, ValueNode } from 'kysely';
import { type TProperties, Type } from 'typebox';
import type { DB } from './schema.ts';
import { compileShape, ShapeCache, type ShapedStatement, runShaped, shapeOf, type Values } from './shaped.ts';

// The one list-query builder: every list endpoint declares its sort fields and
// search columns; paging, sorting (D1), search and the page count happen here.

export interface ListParams {
  page?: number;
  per_page?: number;
  search?: string;
  sort_by?: string;
  sort_direction?: 'asc' | 'desc';
  /** E12: ISO 8601 instants with an offset (checked by the `date-time` format of the query validator). */
  updated_since?: string;
  updated_before?: string;
  created_since?: string;
  created_before?: string;
}

/**
 * E12: an instant of the sync filters. The query validator's `date-time` format
 * (src/http/validation.ts) accepts only a full date and time with `Z` or an offset
 * that names a real day; stored timestamps are `toISOString()` text, so the
 * instant is normalised to that form and compared as text (index range).
 */
export const Instant = (description: string) =>
  Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description, examples: ['2026-01-01T00:00:00Z'] }));

/** E12: the sync filters every list accepts. */
export const SYNC_FILTERS = {
  updated_since: Instant('Records updated at or after this instant (ISO 8601 with `Z` or an offset)'),
  updated_before: Instant('Records updated before this instant'),
  created_since: Instant('Records created at or after this instant'),
  created_before: Instant('Records created before this instant'),
};

/** The stored form of a validated instant: `new Date(x).toISOString()`. */
export const storedInstant = (instant: string): string => new Date(instant).toISOString();

/** Query schema: the common parameters plus the resource's own filters. */
export function listQuery<F extends TProperties>(sortFields: readonly string[], filters: F) {
  return Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    search: Type.Optional(Type.String({ maxLength: 200 })),
    // E12: `updated_at` sorts every list.
    sort_by: Type.Optional(Type.Enum([...new Set([...sortFields, 'updated_at'])])),
    sort_direction: Type.Optional(Type.Enum(['asc', 'desc'])),
    ...SYNC_FILTERS,
    ...filters,
  });
}

/** A column reference or an expression; `search` matches it case-insensitively as a substring. */
export type SearchColumn = string | RawBuilder<unknown>;

/**
 * A search an index serves (migration 0009). `index` names a relation `(rowid, doc)`
 * where `doc like '%term%'` is index-backed: an FTS5 trigram table on SQLite, a view
 * over a pg_trgm GIN expression index on PostgreSQL; `doc` joins the searched fields
 * with a separator. It only narrows the candidates: `columns` are still matched
 * exactly as without an index, so a term cannot match across two fields.
 */
export interface IndexedSearch {
  columns: SearchColumn[];
  index: keyof DB;
}

export interface ListSpec {
  /**
   * API sort field -> column reference; must hold `created_at` and `updated_at`,
   * which the E12 sync filters read too.
   */
  sort: Record<string, string> & { created_at: string; updated_at: string };
  /** Columns (or expressions) `search` matches, case-insensitive substring; optionally index-backed. */
  search?: SearchColumn[] | IndexedSearch;
  /** The id column, the tie-breaker of every order (D1). */
  id: string;
  /**
   * The table whose rows `row_counts` counts per workspace (0009): a list over it
   * filtered by nothing but `workspace_id = ?` reads its total there, not with count(*).
   */
  rowCount?: keyof DB;
  /**
   * A13 (F220): `search` also finds a row by its client: the qualified column holding
   * the contact id (`quotes.contact_id`), matched against the contact's first name,
   * last name, full name and company, through the contacts' trigram index (0026) for
   * terms it serves.
   */
  searchContact?: `${string}.${string}`;
}

/** Sort fields that are their own column names; `created_at` and `updated_at` always among them. */
export function sortByName(fields: readonly string[]): ListSpec['sort'] {
  return { ...Object.fromEntries(fields.map((f) => [f, f])), created_at: 'created_at', updated_at: 'updated_at' };
}

export interface PageResult<R> {
  rows: R[];
  pagination: { page: number; per_page: number; total_pages: number };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// A trigram index needs 3 characters in a row: shorter terms (and terms whose every
// run between wildcards is shorter) scan as before.
const TRIGRAM = /[^\\%_]{3}/u;

/** The LIKE patterns of a search: the exact one and, when an index can serve it, the index's candidate pattern. */
function searchPatterns(spec: ListSpec, search?: string): { pattern?: string; candidate?: string } {
  const term = search?.trim();
  const columns = Array.isArray(spec.search) ? spec.search : spec.search?.columns;
  if (!term || !columns?.length) return {};
  const lower = term.toLowerCase();
  const pattern = `%${escapeLike(lower)}%`;
  const indexed = (spec.search && !Array.isArray(spec.search)) || spec.searchContact !== undefined;
  if (!indexed || !TRIGRAM.test(lower)) return { pattern };
  // The index's LIKE takes no ESCAPE clause (FTS5 would not use it): each wildcard
  // or backslash of the term becomes `_`, which matches it too, so the candidates
  // hold every exact match.
  return { pattern, candidate: `%${lower.replace(/[\\%_]/g, '_')}%` };
}

/** The search's conditions, from its patterns (searchPatterns). */
function applySearch<TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, spec: ListSpec, pattern?: string, candidate?: string) {
  const columns = Array.isArray(spec.search) ? spec.search : spec.search?.columns;
  if (pattern === undefined || !columns?.length) return qb;
  const own = columns.map((col) => sql<boolean>`lower(${typeof col === 'string' ? sql.ref(col) : col}) like ${pattern} escape '\\'`);
  const exact = qb.where((eb) => eb.or(spec.searchContact ? [...own, contactMatches(spec.searchContact, pattern, candidate)] : own));
  if (candidate === undefined || Array.isArray(spec.search) || !spec.search) return exact;
  return exact.where(sql<boolean>`${sql.ref(spec.id)} in (select rowid from ${sql.table(spec.search.index)} where doc like ${candidate})`);
}

/**
 * F220: the row's client matches the search. With a candidate pattern the contacts' trigram
 * index (its document holds the names and the company, 0026) gives the candidates once for
 * the whole list, uncorrelated; a row's contact is in its workspace (D11), so the set needs no
 * workspace. A shorter term reads the row's own contact by its primary key.
 */
function contactMatches(column: `${string}.${string}`, pattern: string, candidate: string | undefined) {
  const name = sql`(lower(c.first_name) like ${pattern} escape '\\' or lower(c.last_name) like ${pattern} escape '\\' or lower(c.first_name || ' ' || c.last_name) like ${pattern} escape '\\' or lower(c.company) like ${pattern} escape '\\')`;
  const ref = sql.ref(column);
  if (candidate !== undefined) {
    return sql<boolean>`${ref} in (select c.id from contacts c where c.id in (select rowid from contacts_search where doc like ${candidate}) and ${name})`;
  }
  const workspace = sql.ref(`${column.slice(0, column.lastIndexOf('.'))}.workspace_id`);
  return sql<boolean>`exists (select 1 from contacts c where c.id = ${ref} and c.workspace_id = ${workspace} and ${name})`;
}

/** Applies the search; returns the builder, for the list and for ad-hoc counts. */
export function withSearch<TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, spec: ListSpec, search?: string) {
  const { pattern, candidate } = searchPatterns(spec, search);
  return applySearch(qb, spec, pattern, candidate);
}

/** The E12 bounds of a list's parameters, in their stored form (undefined: absent). */
function syncBounds(params: ListParams) {
  const stored = (x?: string) => (x === undefined ? undefined : storedInstant(x));
  return { us: stored(params.updated_since), ub: stored(params.updated_before), cs: stored(params.created_since), cb: stored(params.created_before) };
}
type SyncBounds = ReturnType<typeof syncBounds>;

/** E12: `since` inclusive, `before` exclusive, on the stored ISO-8601 UTC text. */
function applySyncFilters<TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, spec: ListSpec, b: SyncBounds) {
  const bounds: [string | undefined, string, '>=' | '<'][] = [
    [b.us, spec.sort.updated_at, '>='],
    [b.ub, spec.sort.updated_at, '<'],
    [b.cs, spec.sort.created_at, '>='],
    [b.cb, spec.sort.created_at, '<'],
  ];
  let out = qb;
  for (const [instant, column, op] of bounds) {
    if (instant !== undefined) out = out.where(sql<boolean>`${sql.ref(column)} ${sql.raw(op)} ${instant}`);
  }
  return out;
}

/** The workspace id when `qb` reads `table` filtered by `workspace_id = ?` alone. */
function workspaceOnly(qb: SelectQueryBuilder<DB, keyof DB, unknown>, table: string): number | undefined {
  const node = qb.toOperationNode();
  const from = node.from?.froms;
  if (from?.length !== 1 || !TableNode.is(from[0]) || from[0].table.identifier.name !== table) return undefined;
  if (node.joins?.length || node.groupBy || node.having || !node.where) return undefined;
  const cond = node.where.where;
  if (!BinaryOperationNode.is(cond) || !OperatorNode.is(cond.operator) || cond.operator.operator !== '=') return undefined;
  const { leftOperand: left, rightOperand: right } = cond;
  if (!ReferenceNode.is(left) || !ColumnNode.is(left.column) || left.column.column.name !== 'workspace_id') return undefined;
  if (left.table && left.table.table.identifier.name !== table) return undefined;
  return ValueNode.is(right) && typeof right.value === 'number' ? right.value : undefined;
}

/**
 * The statement counting the list's rows (its search applied): `count(*)`, or the
 * maintained count when the list is its table filtered by nothing but its
 * workspace (`db` is the list's own, so within its transaction).
 */
function countQuery<TB extends keyof DB, O>(db: Kysely<DB>, base: SelectQueryBuilder<DB, TB, O>, filtered: SelectQueryBuilder<DB, TB, O>, spec: ListSpec) {
  const ws = spec.rowCount && filtered === base ? workspaceOnly(base, spec.rowCount) : undefined;
  return ws === undefined || !spec.rowCount
    ? filtered.clearSelect().select(sql<number>`count(*)`.as('n'))
    : db
        .selectFrom('row_counts')
        .select(sql<number>`coalesce(sum(n), 0)`.as('n'))
        .where('workspace_id', '=', ws)
        .where('table_name', '=', spec.rowCount);
}

/** The number of rows the list has (its search applied). */
async function countRows<TB extends keyof DB, O>(
  db: Kysely<DB>,
  base: SelectQueryBuilder<DB, TB, O>,
  filtered: SelectQueryBuilder<DB, TB, O>,
  spec: ListSpec,
): Promise<number> {
  const counted = await countQuery(db, base, filtered, spec).executeTakeFirst();
  return Number((counted as { n: number } | undefined)?.n ?? 0);
}

/**
 * F193: a page's LIMIT and OFFSET. PostgreSQL plans a named statement generically after
 * five runs, unless that plan looks costlier than the custom ones, which a LIMIT and
 * OFFSET it cannot see always do (it assumes a tenth of the rows for each): every run
 * was planned anew. So the size is part of the statement's text (sizes are few, 1 to
 * 100) and the first page has no OFFSET; later pages keep OFFSET as a parameter. A
 * search term or a sync window keeps both as parameters, so each run is still planned
 * for its own values: how many rows they match decides the plan, and a generic plan
 * cannot tell.
 */
function sizeInText(pattern: string | undefined, bounds: SyncBounds): boolean {
  return pattern === undefined && bounds.us === undefined && bounds.ub === undefined && bounds.cs === undefined && bounds.cb === undefined;
}

/** The ordered query limited to its page; `limit` and `offset` may be a shape's sentinels (listOf), except a size in the text. */
function pageOf<TB extends keyof DB, O>(ordered: SelectQueryBuilder<DB, TB, O>, limit: number, offset: number, inText: boolean) {
  if (!inText) return ordered.limit(limit).offset(offset);
  const sized = ordered.limit(sql.lit(limit));
  return offset === 0 ? sized : sized.offset(offset);
}

/**
 * The page, then the total only when the page cannot tell it: a page that is
 * neither empty nor full ends the list, so its offset plus its length is the total.
 */
export async function paginate<TB extends keyof DB, O>(
  db: Kysely<DB>,
  base: SelectQueryBuilder<DB, TB, O>,
  params: ListParams,
  spec: ListSpec,
): Promise<PageResult<O>> {
  const page = params.page ?? 1;
  const perPage = params.per_page ?? 25;
  const dir = params.sort_direction ?? 'desc'; // D1
  const sortCol = spec.sort[params.sort_by ?? 'created_at'] ?? spec.sort.created_at;
  const { pattern, candidate } = searchPatterns(spec, params.search);
  const bounds = syncBounds(params);
  const filtered = applySearch(applySyncFilters(base, spec, bounds), spec, pattern, candidate);
  const offset = (page - 1) * perPage;
  const ordered = filtered.orderBy(sql.ref(sortCol), dir).orderBy(sql.ref(spec.id), dir);
  const rows = await pageOf(ordered, perPage, offset, sizeInText(pattern, bounds)).execute();
  const full = rows.length === 0 || rows.length === perPage;
  const total = full ? await countRows(db, base, filtered, spec) : offset + rows.length;
  return { rows, pagination: { page, per_page: perPage, total_pages: Math.ceil(total / perPage) } };
}

interface ListShape<O> {
  page: ShapedStatement<O>;
  count: ShapedStatement<{ n: number }>;
}

/**
 * A list whose statements are built and compiled once per shape (F165): `build`
 * gives the list's own statement from its filter values (the workspace, the
 * resource's filters), the list builder adds the E12 bounds, the search, the order
 * and the page; each combination of the filters present, the sort, the direction
 * and the kind of search is compiled once, then run with new values (src/db/shaped.ts:
 * `build` may branch only on which filters are present, booleans and array lengths,
 * and must use each value as given: transform it before). Same statements and
 * answers as `paginate()`, which it falls back to for an uncacheable shape.
 */
export function listOf<F extends object, TB extends keyof DB, O>(spec: ListSpec, build: (db: Kysely<DB>, filters: F) => SelectQueryBuilder<DB, TB, O>) {
  const shapes = new ShapeCache<ListShape<O>>();
  return async (db: Kysely<DB>, filters: F, params: ListParams): Promise<PageResult<O>> => {
    const page = params.page ?? 1;
    const perPage = params.per_page ?? 25;
    const dir = params.sort_direction ?? 'desc'; // D1
    const sortCol = spec.sort[params.sort_by ?? 'created_at'] ?? spec.sort.created_at;
    const offset = (page - 1) * perPage;
    const { pattern, candidate } = searchPatterns(spec, params.search);
    const bounds = syncBounds(params);
    const inText = sizeInText(pattern, bounds);
    const list = { ...bounds, pattern, candidate, limit: inText ? undefined : perPage, offset };
    const leaves: unknown[] = [];
    const shapeKey = shapeOf([filters as Values, list], leaves);
    const shape = shapeKey === undefined ? null : shapes.get(db, `${shapeKey}${sortCol} ${dir}${inText ? ` ${perPage}` : ''}`, () => {
      const compiled = compileShape([filters, list] as const, ([f, v]) => {
        const base = build(db, f);
        const filtered = applySearch(applySyncFilters(base, spec, v), spec, v.pattern, v.candidate);
        const ordered = filtered.orderBy(sql.ref(sortCol), dir).orderBy(sql.ref(spec.id), dir);
        const pageQuery = pageOf(ordered, v.limit ?? perPage, v.offset, inText);
        return [pageQuery, countQuery(db, base, filtered, spec)];
      });
      return compiled && { page: compiled[0] as ShapedStatement<O>, count: compiled[1] as ShapedStatement<{ n: number }> };
    });
    if (!shape) return paginate(db, build(db, filters), params, spec);
    const rows = await runShaped(db, shape.page, leaves);
    const full = rows.length === 0 || rows.length === perPage;
    const total = full ? Number((await runShaped(db, shape.count, leaves))[0]?.n ?? 0) : offset + rows.length;
    return { rows, pagination: { page, per_page: perPage, total_pages: Math.ceil(total / perPage) } };
  };
}
