import { QueryCache, QueryClient } from '@tanstack/react-query';
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
      queries: { retry, staleTime: 30_000, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
  });
}
