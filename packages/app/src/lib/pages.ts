// Every page of a list (per_page 100, the API's most): the first page tells how
// many there are, the rest are asked for at once (in parallel) and joined in
// order. A calendar or a week needs all of its range, not page 1.
import type { PagedPath, PageOf, PageParams, components } from '@fieldwork/client';
import { api, unwrap } from './api.ts';

type Row<P extends PagedPath> = PageOf<P> extends { data: (infer R)[] } ? R : never;
type Page<R> = { data: R[]; pagination: components['schemas']['Pagination'] };
// The typed client checks each path's own query; here one function serves every paged path.
type LooseGet = (path: string, init: { params: { query: object; path?: object } }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export async function allPages<P extends PagedPath>(path: P, params: PageParams<P>): Promise<Row<P>[]> {
  const given: { query?: object; path?: object } = params;
  const get = (page: number) =>
    unwrap((api.GET as unknown as LooseGet)(path, { params: { query: { ...given.query, page }, ...(given.path ? { path: given.path } : {}) } })) as Promise<Page<Row<P>>>;
  const first = await get(1);
  const rest = await Promise.all(Array.from({ length: Math.max(0, first.pagination.total_pages - 1) }, (_, i) => get(i + 2)));
  return [first, ...rest].flatMap((p) => p.data);
}
