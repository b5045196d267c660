// "Messages" (A5): the customer email and SMS log with each message's status,
// attempts and last error, filtered by channel and status.
import { Group, NativeSelect, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Page } from '../../components/page.tsx';
import { RowsTable } from './shared/settings-table.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatDateTime, statusLabel } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';

const CHANNELS = [
  { value: '', label: 'All' },
  { value: 'email', label: 'Email' },
  { value: 'sms', label: 'SMS' },
] as const;
const STATUSES = [
  { value: '', label: 'All' },
  { value: 'queued', label: 'Queued' },
  { value: 'sent', label: 'Sent' },
  { value: 'not_sent', label: 'Not sent' },
  { value: 'failed', label: 'Failed' },
] as const;
type Channel = (typeof CHANNELS)[number]['value'];
type Status = (typeof STATUSES)[number]['value'];

export default function MessagesPage() {
  const me = useMe();
  const [channel, setChannel] = useState<Channel>('');
  const [status, setStatus] = useState<Status>('');
  const messages = useQuery({
    queryKey: ['messages', channel, status],
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/api/v1/messages', {
            params: { query: { per_page: 50, sort_by: 'created_at', sort_direction: 'desc', ...(channel ? { channel } : {}), ...(status ? { status } : {}) } },
          }),
        )
      ).data,
    refetchInterval: 5000, // sending happens in the background
  });
  return (
    <Page title="Messages">
      <Group gap="md" wrap="wrap">
        <NativeSelect
          label="Channel"
          data={[...CHANNELS]}
          value={channel}
          onChange={(e) => setChannel(CHANNELS.find((c) => c.value === e.currentTarget.value)?.value ?? '')}
        />
        <NativeSelect
          label="Status"
          data={[...STATUSES]}
          value={status}
          onChange={(e) => setStatus(STATUSES.find((s) => s.value === e.currentTarget.value)?.value ?? '')}
        />
      </Group>
      {messages.error && <Text role="alert">{messages.error.message}</Text>}
      {messages.data?.length === 0 && <Text>No messages{channel || status ? ' like that' : ' yet'}.</Text>}
      {messages.data && messages.data.length > 0 && (
        <RowsTable
          caption="Messages"
          rows={messages.data}
          rowKey={(m) => m.id}
          columns={[
            { header: 'To', breakAll: true, cell: (m) => m.to },
            {
              header: 'Message',
              cell: (m) => (
                <Stack gap={0}>
                  <span>{m.subject ?? statusLabel(m.type)}</span>
                  <Text size="xs" c="dimmed">
                    {m.channel === 'sms' ? 'SMS' : 'Email'}
                    {m.error ? ` · ${m.error}` : ''}
                  </Text>
                </Stack>
              ),
            },
            { header: 'Status', cell: (m) => statusLabel(m.status) },
            { header: 'Attempts', visibleFrom: 'sm', cell: (m) => m.attempts },
            { header: 'Time', visibleFrom: 'sm', cell: (m) => formatDateTime(m.sent_at ?? m.created_at, me.workspace.timezone) },
          ]}
        />
      )}
    </Page>
  );
}
