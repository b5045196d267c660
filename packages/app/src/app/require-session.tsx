import { Button, Center, Loader, Stack, Text } from '@mantine/core';
import { useDeferredValue } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { signedOut, useSession } from '../lib/session.ts';

/** Every page but the sign-in family: to sign-in when nobody is signed in, and back after (A1). */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  // The shell and the page are most of a load's rendering: drawn as a deferred (transition)
  // render, which React cuts into slices between which the browser stays responsive,
  // rather than in one long task when the answer of GET /api/v1/me arrives.
  const shown = useDeferredValue(session.data);
  if (session.isPending || (session.data && !shown))
    return (
      <Center h="60vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (session.isError)
    return (
      <Center h="60vh">
        <Stack align="center">
          <Text role="alert">Could not reach the server.</Text>
          <Button onClick={() => session.refetch()}>Try again</Button>
        </Stack>
      </Center>
    );
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={next === '/' || signedOut.value ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

/** Where to go after signing in: the page asked for, if it is one of ours. */
export function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
