// "Webhooks" (A5): subscriptions ("New webhook": URL and event, "Delete"; the
// signing secret shown once, as the API answers it once) and the delivery log
// (status, attempts, response code, time; filter by status) with "Redeliver".
import { Button, Card, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { FormButtons, RowsTable } from './shared/settings-table.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatDateTime, statusLabel } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';

type TriggerEvent = components['schemas']['SubscribeWebhookBody']['trigger_event'];
const EVENTS: TriggerEvent[] = [
  'new_request', 'request_updated', 'request_deleted', 'new_contact', 'contact_updated', 'contact_deleted',
  'new_quote', 'quote_updated', 'quote_accepted', 'quote_deleted', 'new_job', 'job_updated', 'job_deleted',
  'new_invoice', 'invoice_updated', 'invoice_sent', 'invoice_paid', 'invoice_deleted', 'payment_received',
  'new_event', 'event_updated', 'event_deleted',
];
type DeliveryStatus = 'pending' | 'delivered' | 'failed';
const STATUSES: { value: '' | DeliveryStatus; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
];
const isStatus = (s: string): s is '' | DeliveryStatus => STATUSES.some((x) => x.value === s);
const SUBSCRIPTIONS = ['webhooks', 'subscriptions'] as const;
const DELIVERIES = ['webhooks', 'deliveries'] as const;

export default function WebhooksPage() {
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  return (
    <Page title="Webhooks" actions={!creating && <Button onClick={() => (setCreating(true), setSecret(null))}>New webhook</Button>}>
      {creating && (
        <NewWebhookForm
          onCancel={() => setCreating(false)}
          onSaved={(url, s) => {
            setCreating(false);
            setSecret({ url, secret: s });
          }}
        />
      )}
      {secret && (
        <Card withBorder maw={640}>
          <Stack gap="xs">
            <TextInput label="Signing secret" readOnly value={secret.secret} description={`Deliveries to ${secret.url} are signed with it. Copy it now: it is shown this once.`} />
            <Group>
              <Button variant="subtle" onClick={() => setSecret(null)}>
                Done
              </Button>
            </Group>
          </Stack>
        </Card>
      )}
      <Subscriptions />
      <Deliveries />
    </Page>
  );
}

function NewWebhookForm({ onCancel, onSaved }: { onCancel: () => void; onSaved: (url: string, secret: string) => void }) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { webhook_url: '', trigger_event: 'new_request' as TriggerEvent },
    submit: (body, { idempotencyKey }) => unwrap(api.POST('/api/webhooks/subscribe', { body, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (result) => {
      void client.invalidateQueries({ queryKey: SUBSCRIPTIONS });
      onSaved(result.subscription.webhook_url, result.subscription.secret);
    },
  });
  return (
    <Card withBorder maw={640}>
      <form onSubmit={onSubmit} noValidate aria-label="New webhook">
        <Stack gap="sm">
          <Text component="h2" fw={600}>
            New webhook
          </Text>
          <FormError error={error} />
          <TextInput label="URL" type="url" placeholder="https://" required {...form.getInputProps('webhook_url')} />
          <NativeSelect label="Event" data={EVENTS.map((e) => ({ value: e, label: statusLabel(e) }))} {...form.getInputProps('trigger_event')} />
          <FormButtons save="Save webhook" pending={pending} onCancel={onCancel} />
        </Stack>
      </form>
    </Card>
  );
}

function Subscriptions() {
  const client = useQueryClient();
  const subs = useQuery({ queryKey: SUBSCRIPTIONS, queryFn: async () => (await unwrap(api.GET('/api/webhooks/list'))).subscriptions });
  const remove = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.DELETE('/api/webhooks/unsubscribe', { body: { subscription_id: id }, headers: { 'idempotency-key': idempotencyKey } })),
    onSettled: () => client.invalidateQueries({ queryKey: SUBSCRIPTIONS }),
  });
  if (subs.error) return <Text role="alert">{subs.error.message}</Text>;
  if (!subs.data) return null;
  return (
    <Stack gap="xs">
      <Text component="h2" fw={600}>
        Subscriptions
      </Text>
      {remove.error && (
        <Text c="red.8" role="alert">
          {remove.error.message}
        </Text>
      )}
      {subs.data.length === 0 ? (
        <Text>No webhooks yet.</Text>
      ) : (
        <RowsTable
          caption="Subscriptions"
          rows={subs.data}
          rowKey={(s) => s.id}
          columns={[
            { header: 'URL', breakAll: true, cell: (s) => s.webhook_url },
            { header: 'Event', cell: (s) => statusLabel(s.trigger_event) },
          ]}
          actions={(s) => (
            <Button size="xs" variant="outline" color="red.8" loading={remove.pending && remove.variables === s.id} onClick={() => remove.run(s.id)}>
              Delete
            </Button>
          )}
        />
      )}
    </Stack>
  );
}

function Deliveries() {
  const me = useMe();
  const client = useQueryClient();
  const [status, setStatus] = useState<'' | DeliveryStatus>('');
  const deliveries = useQuery({
    queryKey: [...DELIVERIES, status],
    queryFn: async () =>
      (await unwrap(api.GET('/api/v1/webhook-deliveries', { params: { query: { per_page: 50, sort_direction: 'desc', ...(status ? { status } : {}) } } }))).data,
    // Deliveries happen in the background: the log follows them while it is open.
    refetchInterval: 3000,
  });
  const [note, setNote] = useState<string | null>(null);
  const redeliver = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.POST('/api/v1/webhook-deliveries/{id}/redeliver', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => setNote('Queued for delivery again.'),
    onSettled: () => client.invalidateQueries({ queryKey: DELIVERIES }),
  });
  return (
    <Stack gap="xs">
      <Text component="h2" fw={600}>
        Delivery log
      </Text>
      <NativeSelect
        label="Status"
        maw={220}
        data={STATUSES}
        value={status}
        onChange={(e) => {
          const v = e.currentTarget.value;
          if (isStatus(v)) setStatus(v);
        }}
      />
      {redeliver.error && (
        <Text c="red.8" role="alert">
          {redeliver.error.message}
        </Text>
      )}
      {note && <Text role="status">{note}</Text>}
      {deliveries.error && <Text role="alert">{deliveries.error.message}</Text>}
      {deliveries.data && deliveries.data.length === 0 && <Text>No deliveries{status ? ' with this status' : ''}.</Text>}
      {deliveries.data && deliveries.data.length > 0 && (
        <RowsTable
          caption="Deliveries"
          rows={deliveries.data}
          rowKey={(d) => d.id}
          rowProps={(d) => ({ 'data-delivery': d.id })}
          columns={[
            { header: 'Event', cell: (d) => statusLabel(d.event) },
            { header: 'Status', cell: (d) => statusLabel(d.status) },
            { header: 'Attempts', cell: (d) => d.attempts },
            { header: 'Response code', cell: (d) => d.last_status_code ?? (d.last_error ? 'Error' : '') },
            { header: 'Time', visibleFrom: 'sm', cell: (d) => formatDateTime(d.delivered_at ?? d.created_at, me.workspace.timezone) },
          ]}
          actions={(d) => (
            <Button size="xs" variant="default" loading={redeliver.pending && redeliver.variables === d.id} onClick={() => redeliver.run(d.id)}>
              Redeliver
            </Button>
          )}
        />
      )}
    </Stack>
  );
}
