import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { type TProperties, Type } from 'typebox';
import type { DB } from './schema.ts';

// The one list-query builder: every list endpoint declares its sort fields and
// search columns; paging, sorting (D1), search and the page count happen here.

export interface ListParams {
  page?: number;
  per_page?: number;
  search?: string;
  sort_by?: string;
  sort_direction?: 'asc' | 'desc';
}

/** Query schema: the common parameters plus the resource's own filters. */
export function listQuery<F extends TProperties>(sortFields: readonly string[], filters: F) {
  return Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    search: Type.Optional(Type.String({ maxLength: 200 })),
    sort_by: Type.Optional(Type.Enum([...sortFields])),
    sort_direction: Type.Optional(Type.Enum(['asc', 'desc'])),
    ...filters,
  });
}

export interface ListSpec {
  /** API sort field -> column reference; must hold `created_at`. */
  sort: Record<string, string>;
  /** Columns (or expressions) `search` matches, case-insensitive substring. */
  search?: (string | RawBuilder<unknown>)[];
  /** The id column, the tie-breaker of every order (D1). */
  id: string;
}

export interface PageResult<R> {
  rows: R[];
  pagination: { page: number; per_page: number; total_pages: number };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Applies the search; returns the builder, for the list and for ad-hoc counts. */
export function withSearch<TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, spec: ListSpec, search?: string) {
  const term = search?.trim();
  if (!term || !spec.search?.length) return qb;
  const pattern = `%${escapeLike(term.toLowerCase())}%`;
  return qb.where((eb) =>
    eb.or(spec.search!.map((col) => sql<boolean>`lower(${typeof col === 'string' ? sql.ref(col) : col}) like ${pattern} escape '\\'`)),
  );
}

/**
 * The page, then the total only when the page cannot tell it: a page that is
 * neither empty nor full ends the list, so its offset plus its length is the total.
 */
export async function paginate<TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, O>,
  params: ListParams,
  spec: ListSpec,
): Promise<PageResult<O>> {
  const page = params.page ?? 1;
  const perPage = params.per_page ?? 25;
  const dir = params.sort_direction ?? 'desc'; // D1
  const sortCol = spec.sort[params.sort_by ?? 'created_at'] ?? spec.sort.created_at;
  const filtered = withSearch(base, spec, params.search);
  const offset = (page - 1) * perPage;
  const rows = await filtered.orderBy(sql.ref(sortCol), dir).orderBy(sql.ref(spec.id), dir).limit(perPage).offset(offset).execute();
  let total = offset + rows.length;
  if (rows.length === 0 || rows.length === perPage) {
    const counted = await filtered.clearSelect().select(sql<number>`count(*)`.as('n')).executeTakeFirst();
    total = Number((counted as { n: number } | undefined)?.n ?? 0);
  }
  return { rows, pagination: { page, per_page: perPage, total_pages: Math.ceil(total / perPage) } };
}
