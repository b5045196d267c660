import { type FetchQueryOptions, QueryCache, QueryClient, type QueryKey, type UseQueryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue } from 'react';
import { ApiFailure } from './api.ts';

// A 4xx will not change by asking again; a network error or 5xx might.
const retry = (count: number, err: unknown) => !(err instanceof ApiFailure && err.status < 500) && count < 2;

export function createQueryClient(onUnauthorized: () => void) {
  return new QueryClient({
    queryCache: new QueryCache({
      // A session that ended (idle expiry, "Sign out everywhere" elsewhere) sends the person to sign in.
      onError: (err) => {
        if (err instanceof ApiFailure && err.status === 401) onUnauthorized();
      },
    }),
    defaultOptions: {
      // A read the role may not make (403) is the page's to refuse as a whole: the shell's
      // route error boundary (app/page-error.tsx) shows "You don't have access to …".
      queries: { retry, staleTime: 30_000, refetchOnWindowFocus: true, throwOnError: (err) => err instanceof ApiFailure && err.status === 403 },
      mutations: { retry: false },
    },
  });
}

/**
 * True once none of a page's reads is still loading, switched in a deferred render:
 * the page's first full drawing then runs as a transition React cuts into slices,
 * between which the browser can paint and take input, instead of one long task in
 * the answer's arrival. Until then the page shows its placeholder.
 */
export function useSettled(...reads: { isLoading: boolean }[]): boolean {
  return useDeferredValue(reads.every((r) => !r.isLoading), false);
}

/**
 * A read's data, switched in a deferred render. A store's update (TanStack Query's, through
 * useSyncExternalStore) always renders synchronously: a record page drawing its title and
 * actions in the render of its answer's arrival made that one long task. Drawn from this,
 * the arrival's own render changes nothing and the drawing is a transition React slices.
 */
export function useDeferredData<T>(read: { data: T | undefined }): T | undefined {
  return useDeferredValue(read.data);
}

/** As TanStack's usePrefetchQuery: starts the read unless the cache holds it already. */
export function prefetch<T, K extends QueryKey>(client: QueryClient, read: FetchQueryOptions<T, Error, T, K>): void {
  if (!client.getQueryState(read.queryKey)) void client.prefetchQuery(read);
}

/**
 * useQuery whose request starts in the render rather than in the effect after the
 * commit, which runs only once the page is drawn and painted: a page's reads then go
 * out together, as soon as it renders.
 */
export function useEagerQuery<T, K extends QueryKey>(options: UseQueryOptions<T, Error, T, K>) {
  const client = useQueryClient();
  if (options.enabled !== false) prefetch(client, options as FetchQueryOptions<T, Error, T, K>);
  return useQuery(options);
}
