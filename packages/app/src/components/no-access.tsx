// A page the role may not open (A13): says so in words, never the API's scope name.
// Rendered by the shell's route error boundary when a page's read answers 403, and
// by pages that know from the session's scopes before asking (Settings).
import { Anchor, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { Page } from './page.tsx';

/** What each top-level page is about, for "You don't have access to …". */
const AREAS: Record<string, string> = {
  '': 'Home',
  'my-day': 'My day',
  schedule: 'the schedule',
  clients: 'clients',
  requests: 'requests',
  quotes: 'quotes',
  jobs: 'jobs',
  invoices: 'invoices',
  timesheets: 'timesheets',
  reports: 'reports',
  settings: 'settings',
  account: 'this account page',
};

/** The area a path under /app belongs to, in words. */
export const areaOf = (pathname: string) => AREAS[pathname.split('/').filter(Boolean)[0] ?? ''] ?? 'this page';

export function NoAccess({ area }: { area?: string }) {
  const { pathname } = useLocation();
  return (
    <Page title={`You don't have access to ${area ?? areaOf(pathname)}`}>
      <Text>
        Your role in this workspace does not include it. An owner or admin can change your role on the Team page.{' '}
        <Anchor component={Link} to="/">
          Go to the start
        </Anchor>
      </Text>
    </Page>
  );
}
