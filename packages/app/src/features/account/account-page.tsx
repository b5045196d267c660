import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useMe, useResetSession } from '../../lib/session.ts';

/** `/app/account` (A1): who I am, where, and "Sign out everywhere". */
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
