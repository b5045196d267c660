// Internal notes (comments) of a record: the list and "Add note". Mentions are
// written as @First Last and sent as mentioned_user_ids, so the API notifies them.
import { Button, Paper, Stack, Text } from '@mantine/core';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { FormError, useApiForm } from './api-form.tsx';
import { GrowingTextarea } from './growing-textarea.tsx';

type ModuleType = 'contact' | 'request' | 'quote' | 'job' | 'invoice';

export const notesQuery = (moduleType: ModuleType, moduleId: number) =>
  queryOptions({
    queryKey: ['comments', moduleType, moduleId],
    queryFn: () => unwrap(api.GET('/api/v1/comments', { params: { query: { module_type: moduleType, module_id: moduleId, per_page: 100, sort_by: 'created_at', sort_direction: 'asc' } } })),
  });

/** The team, for @mentions. */
export const usersQuery = queryOptions({ queryKey: ['users', 'all'], queryFn: () => unwrap(api.GET('/api/v1/users', { params: { query: { per_page: 100 } } })), staleTime: 300_000 });

export function Notes({ moduleType, moduleId, timezone }: { moduleType: ModuleType; moduleId: number; timezone: string | null }) {
  const client = useQueryClient();
  const notesRead = notesQuery(moduleType, moduleId);
  const key = notesRead.queryKey;
  const notes = useQuery(notesRead);
  const users = useQuery(usersQuery);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { comment: '' },
    validate: { comment: (v) => (v.trim() ? null : 'Write a note first') },
    submit: (values, { idempotencyKey }) => {
      const mentioned = (users.data?.data ?? []).filter((u) => values.comment.includes(`@${u.first_name} ${u.last_name}`)).map((u) => u.user_id);
      return unwrap(
        api.POST('/api/v1/comments', {
          body: { module_type: moduleType, module_id: moduleId, comment: values.comment, ...(mentioned.length ? { mentioned_user_ids: mentioned } : {}) },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      );
    },
    onSuccess: () => {
      form.reset();
      void client.invalidateQueries({ queryKey: key });
    },
  });
  return (
    <Stack gap="xs">
      {(notes.data?.data ?? []).map((n) => (
        <Paper key={n.id} withBorder p="xs">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {n.comment}
          </Text>
          <Text size="xs" c="dimmed">
            {formatDateTime(n.created_at, timezone)}
          </Text>
        </Paper>
      ))}
      <form onSubmit={onSubmit}>
        <Stack gap="xs">
          <FormError error={error} />
          <GrowingTextarea label="Note" description="Mention someone with @First Last" minRows={2} {...form.getInputProps('comment')} />
          <Button type="submit" loading={pending} variant="default" style={{ alignSelf: 'flex-start' }}>
            Add note
          </Button>
        </Stack>
      </form>
    </Stack>
  );
}
