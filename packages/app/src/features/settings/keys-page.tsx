// "API keys" (A5): create a key (its token shown once, here, with Copy; never
// again), the list with when each was last used, and Revoke.
import { Button, Card, CopyButton, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { FormButtons, RowsTable } from './shared/settings-table.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatAgo } from '../../lib/format.ts';
import { useApiAction } from '../../components/api-action.tsx';

type Key = components['schemas']['KeyListItem'];
type KeyType = components['schemas']['CreateKeyBody']['type'];
const TYPES: { value: KeyType; label: string }[] = [
  { value: 'general', label: 'General (every scope but team and keys)' },
  { value: 'rest', label: 'REST (the scopes you list)' },
  { value: 'embed_forms', label: 'Embedded forms' },
  { value: 'automation', label: 'Automation' },
  { value: 'plugin', label: 'Plugin' },
];
const KEYS = ['keys'] as const;

export default function KeysPage() {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  return (
    <Page
      title="API keys"
      actions={
        !creating && (
          <Button
            onClick={() => {
              setCreating(true);
              setCreated(null);
            }}
          >
            New API key
          </Button>
        )
      }
    >
      {creating && (
        <NewKeyForm
          onCancel={() => setCreating(false)}
          onCreated={(name, token) => {
            setCreating(false);
            setCreated({ name, token });
          }}
        />
      )}
      {created && <NewToken {...created} onDone={() => setCreated(null)} />}
      <KeyList />
    </Page>
  );
}

function NewKeyForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (name: string, token: string) => void }) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { name: '', type: 'general' as KeyType, scopes: '' },
    submit: ({ name, type, scopes }, { idempotencyKey }) => {
      const list = scopes.split(/[\s,]+/).filter(Boolean);
      return unwrap(
        api.POST('/api/v1/keys', {
          body: { type, ...(name.trim() ? { name: name.trim() } : {}), ...(list.length ? { scopes: list } : {}) },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      );
    },
    onSuccess: (result, values) => {
      void client.invalidateQueries({ queryKey: KEYS });
      if (result.data.token) onCreated(values.name.trim() || `Key ${result.data.id}`, result.data.token);
    },
  });
  return (
    <Card withBorder maw={640}>
      <form onSubmit={onSubmit} noValidate aria-label="New API key">
        <Stack gap="sm">
          <Text component="h2" fw={600}>
            New API key
          </Text>
          <FormError error={error} />
          <TextInput label="Name" description="What uses it, such as “Accounting sync”" {...form.getInputProps('name')} />
          <NativeSelect label="Type" data={TYPES} {...form.getInputProps('type')} />
          <TextInput
            label="Scopes"
            description="Optional: scopes separated by spaces or commas, such as contacts:read jobs:write (needed for REST keys)"
            {...form.getInputProps('scopes')}
          />
          <FormButtons save="Create key" pending={pending} onCancel={onCancel} />
        </Stack>
      </form>
    </Card>
  );
}

function NewToken({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  return (
    <Card withBorder maw={640} bg="var(--mantine-color-green-light)">
      <Stack gap="sm">
        <Text component="h2" fw={600}>
          {name} is ready
        </Text>
        <TextInput label="Your new key" readOnly value={token} onFocus={(e) => e.currentTarget.select()} description="Copy it now: it is shown this once." />
        <Group>
          <CopyButton value={token}>
            {({ copied, copy }) => (
              <Button onClick={copy} variant={copied ? 'light' : 'filled'}>
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
          <Button variant="subtle" onClick={onDone}>
            Done
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function KeyList() {
  const client = useQueryClient();
  const keys = useQuery({
    queryKey: KEYS,
    queryFn: async () => (await unwrap(api.GET('/api/v1/keys', { params: { query: { revoked: false, per_page: 100, sort_by: 'created_at', sort_direction: 'desc' } } }))).data,
  });
  const revoke = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.DELETE('/api/v1/keys/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSettled: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  if (keys.error) return <Text role="alert">{keys.error.message}</Text>;
  if (!keys.data) return null;
  if (keys.data.length === 0) return <Text>No API keys yet.</Text>;
  return (
    <Stack gap="xs">
      {revoke.error && (
        <Text c="red" role="alert">
          {revoke.error.message}
        </Text>
      )}
      <RowsTable
        caption="API keys"
        showCaption
        rows={keys.data}
        rowKey={(k) => k.id}
        columns={[
          {
            header: 'Name',
            cell: (k: Key) => (
              <>
                {k.name ?? `Key ${k.id}`}
                <Text size="xs" c="dimmed" visibleFrom="sm">
                  {k.scopes.length > 6 ? `${k.scopes.length} scopes` : k.scopes.join(', ')}
                </Text>
              </>
            ),
          },
          { header: 'Type', cell: (k) => k.type },
          { header: 'Created', visibleFrom: 'sm', cell: (k) => formatAgo(k.created_at) },
          { header: 'Last used', cell: (k) => (k.last_used_at ? formatAgo(k.last_used_at) : 'Never') },
        ]}
        actions={(k) => (
          <Button size="xs" color="red.8" variant="outline" loading={revoke.pending && revoke.variables === k.id} onClick={() => revoke.run(k.id)}>
            Revoke
          </Button>
        )}
      />
    </Stack>
  );
}
