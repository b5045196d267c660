// A13: a message the API accepted is queued, not sent: without SMTP_URL, or to an
// address the mail server refuses, it never goes. Say where it went (the message log).
import { Alert, Anchor } from '@mantine/core';
import { Link } from 'react-router';
import { useCan } from '../lib/session.ts';

export function QueuedMessage({ to }: { to: string | null | undefined }) {
  const can = useCan();
  return (
    <Alert color="blue" role="status">
      {`Queued for ${to ?? 'the client'}. `}
      {can('workspace:write') ? (
        <>
          The{' '}
          <Anchor component={Link} to="/settings/messages">
            message log
          </Anchor>{' '}
          shows whether it went out.
        </>
      ) : (
        'The message log shows whether it went out.'
      )}
    </Alert>
  );
}
