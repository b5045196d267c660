// Requests (A3): list by status, New request, the request's page with status
// changes and Create quote (E6).
import type { components } from '@fieldwork/client';
import { Button, Group, Loader, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { ComboSelect } from '../../components/combo-select.tsx';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { pageQuery } from '../../components/data-list.tsx';
import { clientColumn, ListPage, tabStatus } from '../../components/list-page.tsx';
import { DocumentSection } from '../../components/documents.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { NotFound } from '../../components/not-found.tsx';
import { Page } from '../../components/page.tsx';
import { ClientPicker, PropertyPicker } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useDeferredData } from '../../lib/query.ts';
import { formatDate, statusLabel } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';
import { GrowingTextarea } from '../../components/growing-textarea.tsx';
import { RecordNotesAndFiles, usePrefetchRecordParts } from '../../components/record-parts.tsx';

const STATUSES = ['new', 'responded', 'overdue', 'rejected', 'archived'] as const;
type Status = (typeof STATUSES)[number];
const asStatus = (v: string | null | undefined): Status | undefined => STATUSES.find((s) => s === v);

export default function RequestsRoutes() {
  return (
    <Routes>
      <Route index element={<RequestsList />} />
      <Route path="new" element={<NewRequest />} />
      <Route path=":id" element={<RequestPage />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

function RequestsList() {
  return (
    <ListPage<components['schemas']['RequestListItem']>
      title="Requests"
      path="/requests"
      queryKey="requests"
      newLabel="New request"
      tabs={STATUSES}
      columns={[
        { key: 'number', label: 'Request', sortable: true, render: (r) => `Request #${r.number}` },
        clientColumn(),
        { key: 'name', label: 'Title', wide: true, render: (r) => r.name ?? '' },
        { key: 'status', label: 'Status', render: (r) => <StatusBadge status={r.status} /> },
        { key: 'requested_on', label: 'Preferred date', sortable: true, wide: true, render: (r) => formatDate(r.requested_on) },
      ]}
      fetchPage={(p) =>
        unwrap(api.GET('/api/v1/requests', { params: { query: { expand: 'contact', ...pageQuery(p, ['number', 'requested_on', 'created_at'] as const), status: tabStatus(STATUSES, p.tab) } } }))
      }
      empty="No requests."
    />
  );
}

function NewRequest() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { contact_id: Number(params.get('client')) || null, property_id: null as number | null, name: '', details: '', assessment: '', requested_on: '' },
    validate: { contact_id: (v) => (v ? null : 'Choose a client') },
    submit: (v, { idempotencyKey }) =>
      unwrap(
        api.POST('/api/v1/requests', {
          body: {
            contact_id: v.contact_id,
            property_id: v.property_id,
            name: v.name || null,
            details: v.details || null,
            assessment: v.assessment || null,
            requested_on: v.requested_on || null,
          },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['requests'] });
      navigate(`/requests/${res.data.id}`);
    },
  });
  const values = form.getValues();
  return (
    <Page title="New request">
      <form onSubmit={onSubmit} noValidate>
        <FormError error={error} />
        <Stack maw={720} gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <ClientPicker
              required
              value={values.contact_id}
              error={typeof form.errors.contact_id === 'string' ? form.errors.contact_id : undefined}
              onChange={(v) => {
                form.setFieldValue('contact_id', v);
                form.setFieldValue('property_id', null);
              }}
            />
            <PropertyPicker clientId={values.contact_id} value={values.property_id} onChange={(v) => form.setFieldValue('property_id', v)} />
          </SimpleGrid>
          <TextInput label="Title" {...form.getInputProps('name')} />
          <GrowingTextarea label="Details" minRows={3} {...form.getInputProps('details')} />
          <GrowingTextarea label="Assessment" minRows={2} {...form.getInputProps('assessment')} />
          <TextInput label="Preferred date" type="date" maw={220} {...form.getInputProps('requested_on')} />
          <Button type="submit" loading={pending} style={{ alignSelf: 'flex-start' }}>
            Save request
          </Button>
        </Stack>
      </form>
    </Page>
  );
}

function RequestPage() {
  const id = Number(useParams().id);
  const me = useMe();
  const navigate = useNavigate();
  const client = useQueryClient();
  const request = useQuery({ queryKey: ['requests', id], queryFn: () => unwrap(api.GET('/api/v1/requests/{id}', { params: { path: { id } } })) });
  usePrefetchRecordParts('request', id);
  const status = useApiAction({
    run: (s: Status, { idempotencyKey }) => unwrap(api.PUT('/api/v1/requests/{id}/status', { params: { path: { id } }, body: { status: s } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['requests'] }),
  });
  const createQuote = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.POST('/api/v1/requests/{id}/create-quote', { params: { path: { id } } })),
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['requests'] });
      void client.invalidateQueries({ queryKey: ['quotes'] });
      navigate(`/quotes/${res.data.id}/edit`);
    },
  });
  const record = useDeferredData(request);
  if (request.isError) return <Page title="Request not found">The request does not exist or was deleted.</Page>;
  if (!record) return <Loader aria-label="Loading" />;
  const r = record.data;
  return (
    <Page
      title={`Request #${r.number}`}
      actions={
        <Button onClick={() => createQuote.run()} loading={createQuote.pending}>
          Create quote
        </Button>
      }
    >
      {(createQuote.error ?? status.error) && (
        <Text c="red" role="alert">
          {(createQuote.error ?? status.error)?.message}
        </Text>
      )}
      <Paper withBorder p="md">
        <Group justify="space-between" align="start" wrap="wrap">
          <Stack gap={4}>
            {r.name && <Text fw={600}>{r.name}</Text>}
            {r.contact_id && (
              <Text size="sm">
                <Link to={`/clients/${r.contact_id}`}>Open the client</Link>
              </Text>
            )}
            <Text size="sm">Preferred date: {r.requested_on ? formatDate(r.requested_on) : 'none'}</Text>
            <StatusBadge status={r.status} />
          </Stack>
          <ComboSelect
            label="Status"
            allowDeselect={false}
            data={STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))}
            value={r.status}
            onChange={(v) => {
              const s = asStatus(v);
              if (s) status.run(s);
            }}
            maw={220}
          />
        </Group>
      </Paper>
      <DocumentSection title="Details">
        <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{r.details || 'No details.'}</Text>
      </DocumentSection>
      <DocumentSection title="Assessment">
        <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{r.assessment || 'No assessment.'}</Text>
      </DocumentSection>
      <RecordNotesAndFiles moduleType="request" moduleId={id} timezone={me.workspace.timezone} />
    </Page>
  );
}
