import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { type TProperties, Type } from 'typebox';
import type { DB } from '../db/schema.ts';

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
 * One round trip in the common case: the page rows carry the total through a
 * window count. Only a page past the end needs a second (count) query.
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
  const rows = (await filtered
    .select(sql<number>`count(*) over ()`.as('__total'))
    .orderBy(sql.ref(sortCol), dir)
    .orderBy(sql.ref(spec.id), dir)
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute()) as (O & { __total: number })[];
  let total: number;
  if (rows.length) total = Number(rows[0].__total);
  else {
    const counted = await filtered.clearSelect().select(sql<number>`count(*)`.as('n')).executeTakeFirst();
    total = Number((counted as { n: number } | undefined)?.n ?? 0);
  }
  for (const r of rows) delete (r as { __total?: number }).__total;
  return { rows, pagination: { page, per_page: perPage, total_pages: Math.ceil(total / perPage) } };
}
