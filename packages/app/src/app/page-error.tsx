// The shell's one route error boundary: a page whose read the API refused (403,
// thrown by the queries, lib/query.ts) says in words that the role may not open it;
// anything else says what went wrong without losing the header and navigation.
import { Anchor, Text } from '@mantine/core';
import { Link, useRouteError } from 'react-router';
import { NoAccess } from '../components/no-access.tsx';
import { Page } from '../components/page.tsx';
import { ApiFailure } from '../lib/api.ts';

export function PageError() {
  const error = useRouteError();
  if (error instanceof ApiFailure && error.status === 403) return <NoAccess />;
  return (
    <Page title="Something went wrong">
      <Text role="alert">
        {error instanceof Error ? error.message : 'The page could not be shown.'}{' '}
        <Anchor component={Link} to="/">
          Go to the start
        </Anchor>
      </Text>
    </Page>
  );
}
