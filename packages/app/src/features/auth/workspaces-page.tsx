import { Button, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../lib/api.ts';
import { useMe, useResetSession } from '../../lib/session.ts';
import { AuthLayout } from './auth-layout.tsx';

/** `/app/workspaces` (A1): a person in several workspaces picks one. */
export default function WorkspacesPage() {
  const me = useMe();
  const navigate = useNavigate();
  const reset = useResetSession();
  const choose = useMutation({
    mutationFn: (workspace_id: number) => unwrap(api.POST('/api/auth/switch-workspace', { body: { workspace_id } })),
    onSuccess: async (answer) => {
      await reset(answer.data);
      navigate('/', { replace: true });
    },
  });
  return (
    <AuthLayout title="Choose a workspace">
      <Stack gap="xs">
        {me.workspaces.map((w) => (
          <Button
            key={w.id}
            variant={w.id === me.workspace.id ? 'filled' : 'default'}
            justify="space-between"
            rightSection={<Text size="xs">{w.role}</Text>}
            loading={choose.isPending && choose.variables === w.id}
            onClick={() => choose.mutate(w.id)}
            aria-current={w.id === me.workspace.id ? 'true' : undefined}
          >
            {w.name}
          </Button>
        ))}
        {choose.error && (
          <Text c="red" role="alert">
            {choose.error.message}
          </Text>
        )}
      </Stack>
    </AuthLayout>
  );
}
