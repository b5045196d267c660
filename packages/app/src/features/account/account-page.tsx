import { Button, Card, CopyButton, Group, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Page } from '../../components/page.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';
import { useMe, useResetSession } from '../../lib/session.ts';

/** `/app/account` (A1): who I am, where, my calendar feed (A9) and "Sign out everywhere". */
export default function AccountPage() {
  const me = useMe();
  const reset = useResetSession();
  const everywhere = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/sign-out-everywhere')),
    onSuccess: async () => {
      await reset(null); // RequireSession then sends this page to sign-in
    },
  });
  return (
    <Page title="Account">
      <Card withBorder maw={560}>
        <Stack gap={4}>
          <Text fw={600}>
            {me.user.first_name} {me.user.last_name}
          </Text>
          <Text>{me.user.email}</Text>
          <Text size="sm" c="dimmed">
            {me.workspace.name} · {me.user.role}
          </Text>
        </Stack>
      </Card>
      <CalendarFeed />
      <Card withBorder maw={560}>
        <Stack gap="xs">
          <Text fw={600} component="h2">
            Sessions
          </Text>
          <Text size="sm">Signs you out on every device and browser, this one included.</Text>
          <Group>
            <Button color="red" variant="outline" loading={everywhere.isPending} onClick={() => everywhere.mutate()}>
              Sign out everywhere
            </Button>
          </Group>
          {everywhere.error && (
            <Text c="red" role="alert">
              {everywhere.error.message}
            </Text>
          )}
        </Stack>
      </Card>
    </Page>
  );
}

/**
 * A9, E25, A181: a link calendar apps subscribe to, listing my visits. Only its hash is
 * kept, so the link shows once, right after it is made; a new one replaces the old.
 */
function CalendarFeed() {
  const [url, setUrl] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/me/calendar-feed', { headers: { 'idempotency-key': crypto.randomUUID() } })),
    onSuccess: (res) => {
      setUrl(res.data.url);
      setNotice(null);
    },
  });
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/me/calendar-feed')),
    onSuccess: () => {
      setUrl(null);
      setNotice('Calendar link revoked: calendars using it no longer update.');
    },
    onError: (err) => {
      if (err instanceof ApiFailure && err.status === 404) {
        setUrl(null);
        setNotice('There is no calendar link to revoke.');
      }
    },
  });
  const failure = [create.error, revoke.error].find((e) => e && !(e instanceof ApiFailure && e.status === 404));
  return (
    <Card withBorder maw={560}>
      <Stack gap="xs">
        <Text fw={600} component="h2">
          Calendar feed
        </Text>
        <Text size="sm">Your visits in your own calendar app (Google, Apple, Outlook): subscribe to the link. A new link replaces the previous one.</Text>
        {url && (
          <>
            <TextInput label="Calendar link" readOnly value={url} onFocus={(e) => e.currentTarget.select()} description="Copy it now: it is shown this once." />
            <Group>
              <CopyButton value={url}>
                {({ copied, copy }) => (
                  <Button onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </>
        )}
        <Group>
          <Button variant={url ? 'default' : 'filled'} loading={create.isPending} onClick={() => create.mutate()}>
            Create calendar link
          </Button>
          <Button color="red" variant="outline" loading={revoke.isPending} onClick={() => revoke.mutate()}>
            Revoke
          </Button>
        </Group>
        {notice && <Text role="status">{notice}</Text>}
        {failure && (
          <Text c="red" role="alert">
            {failure.message}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
