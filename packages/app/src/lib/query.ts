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
      // A read the role may not make (403) is the page's to refuse as a whole: the shell's
      // route error boundary (app/page-error.tsx) shows "You don't have access to …".
      queries: { retry, staleTime: 30_000, refetchOnWindowFocus: true, throwOnError: (err) => err instanceof ApiFailure && err.status === 403 },
      mutations: { retry: false },
    },
  });
}
