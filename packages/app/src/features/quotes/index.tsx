// Quotes (A3): list by status with totals, the editor (new and Edit), and the
// quote's page: what the customer sees, status history, Send to client,
// Download PDF, Mark as accepted, Convert to job, the customer's answer (E8).
import type { components } from '@fieldwork/client';
import { Alert, Button, Group, Loader, Modal, Paper, Stack, Table, Text } from '@mantine/core';
import { PaymentForm } from '../../components/payment-form.tsx';
import { ComboSelect } from '../../components/combo-select.tsx';
import { useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router';
import { pageQuery } from '../../components/data-list.tsx';
import { clientColumn, ListPage, tabStatus } from '../../components/list-page.tsx';
import { useApiAction } from '../../components/api-action.tsx';
import { DocumentEditor, documentBody, documentValues } from '../../components/document-editor.tsx';
import { DocumentSection, DocumentView } from '../../components/documents.tsx';
import { QueuedMessage } from '../../components/queued-message.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { NotFound } from '../../components/not-found.tsx';
import { CustomFieldList } from '../../components/custom-fields.tsx';
import { Page } from '../../components/page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatDate, formatDateTime, money, statusLabel, todayIn } from '../../lib/format.ts';
import { useCan, useMe } from '../../lib/session.ts';
import { useDeferredData, useEagerQuery, useSettled } from '../../lib/query.ts';
import { RecordNotesAndFiles, usePrefetchRecordParts } from '../../components/record-parts.tsx';

const STATUSES = ['draft', 'awaiting_response', 'accepted', 'declined', 'expired', 'archived', 'awaiting_deposit'] as const;

export default function QuotesRoutes() {
  return (
    <Routes>
      <Route index element={<QuotesList />} />
      <Route path="new" element={<QuoteEditor />} />
      <Route path=":id" element={<QuotePage />} />
      <Route path=":id/edit" element={<QuoteEditor />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

function QuotesList() {
  const ws = useMe().workspace;
  return (
    <ListPage<components['schemas']['QuoteListItem']>
      title="Quotes"
      path="/quotes"
      queryKey="quotes"
      newLabel="New quote"
      tabs={STATUSES}
      columns={[
        { key: 'number', label: 'Quote', sortable: true, render: (q) => `Quote #${q.number}` },
        clientColumn(),
        { key: 'name', label: 'Title', wide: true, render: (q) => q.name ?? '' },
        { key: 'status', label: 'Status', render: (q) => <StatusBadge status={q.status} /> },
        { key: 'total', label: 'Total', sortable: true, wide: true, render: (q) => money(q.total, ws) },
        { key: 'date', label: 'Date', sortable: true, wide: true, render: (q) => formatDate(q.date) },
      ]}
      fetchPage={(p) =>
        unwrap(api.GET('/api/v1/quotes', { params: { query: { expand: 'contact', ...pageQuery(p, ['number', 'total', 'date', 'created_at'] as const), status: tabStatus(STATUSES, p.tab) } } }))
      }
      empty="No quotes."
    />
  );
}

function QuoteEditor() {
  const id = Number(useParams().id) || null;
  const [params] = useSearchParams();
  const ws = useMe().workspace;
  const navigate = useNavigate();
  const client = useQueryClient();
  const quote = useQuery({ queryKey: ['quotes', id], queryFn: () => unwrap(api.GET('/api/v1/quotes/{id}', { params: { path: { id: id ?? 0 } } })), enabled: id !== null });
  if (id !== null && !quote.data) return quote.isError ? <Page title="Quote not found" /> : <Loader aria-label="Loading" />;
  const q = quote.data?.data ?? null;
  return (
    <Page title={q ? `Edit quote #${q.number}` : 'New quote'}>
      <DocumentEditor
        initial={documentValues(q, Number(params.get('client')) || null)}
        moduleType="quote"
        create={id === null}
        saveLabel="Save quote"
        workspace={ws}
        submit={(v, ctx) => {
          const { idempotencyKey } = ctx;
          const body = { ...documentBody(v, ctx), message: v.message.trim() || null };
          const headers = { 'idempotency-key': idempotencyKey };
          return id === null ? unwrap(api.POST('/api/v1/quotes', { body, headers })) : unwrap(api.PUT('/api/v1/quotes/{id}', { params: { path: { id } }, body, headers }));
        }}
        onSaved={(saved) => {
          void client.invalidateQueries({ queryKey: ['quotes'] });
          navigate(`/quotes/${saved}`);
        }}
        aside={id === null ? (v) => <StartFromTemplate contactId={v.contact_id} propertyId={v.property_id} /> : undefined}
      />
    </Page>
  );
}

/**
 * A new quote from one of the workspace's templates (A87): the draft is made by
 * `POST /quote-templates/:id/create-quote`, given the client and property chosen
 * so far with a PUT, and opened in the editor with the template's lines.
 */
function StartFromTemplate({ contactId, propertyId }: { contactId: number | null; propertyId: number | null }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const can = useCan();
  const allowed = can('quote-templates:read') && can('quotes:write');
  const templates = useQuery({
    queryKey: ['quote-templates', 'all'],
    queryFn: () => unwrap(api.GET('/api/v1/quote-templates', { params: { query: { per_page: 100, sort_by: 'template_name', sort_direction: 'asc' } } })),
    enabled: allowed,
    retry: false,
  });
  // One key per choice (A160): the quote and its client set once, however often chosen meanwhile.
  const start = useApiAction({
    run: async (templateId: number, { idempotencyKey: key }) => {
      const made = await unwrap(
        api.POST('/api/v1/quote-templates/{id}/create-quote', { params: { path: { id: templateId } }, headers: { 'idempotency-key': key } }),
      );
      if (contactId !== null) {
        await unwrap(
          api.PUT('/api/v1/quotes/{id}', {
            params: { path: { id: made.data.id } },
            body: { contact_id: contactId, property_id: propertyId },
            headers: { 'idempotency-key': `${key}-client` },
          }),
        );
      }
      return made.data.id;
    },
    onSuccess: (quoteId) => {
      void client.invalidateQueries({ queryKey: ['quotes'] });
      navigate(`/quotes/${quoteId}/edit`);
    },
  });
  const list = templates.data?.data ?? [];
  if (!allowed || list.length === 0) return null;
  return (
    <Stack gap={4}>
      <ComboSelect
        label="Start from template"
        placeholder="Choose a template"
        data={list.map((t) => ({ value: String(t.id), label: t.template_name }))}
        value={null}
        disabled={start.pending}
        onChange={(v) => v && start.run(Number(v))}
        maw={360}
      />
      {start.error && (
        <Text c="red" size="sm" role="alert">
          {start.error.message}
        </Text>
      )}
    </Stack>
  );
}

function QuotePage() {
  const id = Number(useParams().id);
  const me = useMe();
  const ws = me.workspace;
  const navigate = useNavigate();
  const client = useQueryClient();
  const quote = useEagerQuery({ queryKey: ['quotes', id], queryFn: () => unwrap(api.GET('/api/v1/quotes/{id}', { params: { path: { id } } })) });
  usePrefetchRecordParts('quote', id);
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: ['quotes'] }), client.invalidateQueries({ queryKey: ['jobs'] })]);
  const send = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.POST('/api/v1/notifications', { body: { type: 'quote_to_customer', module_id: id }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
  });
  const accept = useApiAction({
    run: (_: void, { idempotencyKey }) =>
      unwrap(api.PUT('/api/v1/quotes/{id}/status', { params: { path: { id } }, body: { status: 'accepted' }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
  });
  const [paying, setPaying] = useState(false);
  const deposits = useQuery({
    queryKey: ['quotes', id, 'payments'],
    queryFn: () => unwrap(api.GET('/api/v1/quotes/{id}/payments', { params: { path: { id } } })),
    enabled: (quote.data?.data.deposit_amount ?? 0) > 0,
  });
  const settled = useSettled(quote); // the title and actions at once, the rest deferred (A217)
  const record = useDeferredData(quote);
  if (quote.isError) return <Page title="Quote not found">The quote does not exist or was deleted.</Page>;
  if (!record) return <Loader aria-label="Loading" />;
  const q = record.data;
  const failure = send.error ?? accept.error;
  return (
    <Page
      title={`Quote #${q.number}`}
      actions={
        <Group gap="xs">
          <Button component={Link} to={`/quotes/${id}/edit`} variant="default">
            Edit
          </Button>
          <Button onClick={() => send.run()} loading={send.pending}>
            Send to client
          </Button>
          <Button component="a" href={`/api/v1/quotes/${id}/pdf`} download variant="default">
            Download PDF
          </Button>
          {q.status !== 'accepted' && q.status !== 'awaiting_deposit' && (
            <Button onClick={() => accept.run()} loading={accept.pending} variant="default">
              Mark as accepted
            </Button>
          )}
          {q.status === 'awaiting_deposit' && <Button onClick={() => setPaying(true)}>Record deposit</Button>}
          {q.status === 'accepted' && q.job && (
            <Button onClick={() => q.job && navigate(`/jobs/${q.job.id}`)}>Convert to job</Button>
          )}
        </Group>
      }
    >
      {settled ? (
        <>
          {failure && (
            <Alert color="red" role="alert">
              {failure.message}
            </Alert>
          )}
          {send.data && <QueuedMessage to={send.data.data.recipient.email} />}
          <Paper withBorder p="md">
            <Group justify="space-between" wrap="wrap">
              <Stack gap={2}>
                {q.name && <Text fw={600}>{q.name}</Text>}
                {q.contact && (
                  <Link to={`/clients/${q.contact.id}`}>{fullName(q.contact)}</Link>
                )}
                {q.date && <Text size="sm">Date: {formatDate(q.date)}</Text>}
                <CustomFieldList moduleType="quote" values={q.custom_fields} />
              </Stack>
              <StatusBadge status={q.status} />
            </Group>
          </Paper>
          <DocumentView items={q.line_items} pricing={q} workspace={ws} />
          {q.deposit_amount > 0 && (
            <DocumentSection title="Deposit">
              <Text>
                Deposit: <span data-testid="deposit-amount">{money(q.deposit_amount, ws)}</span>, paid {money(q.deposit_paid, ws)}
                {q.status === 'awaiting_deposit' ? `, due ${money(Math.round((q.deposit_amount - q.deposit_paid) * 100) / 100, ws)}` : ''}
              </Text>
              {(deposits.data?.data ?? []).length > 0 && (
                <Table aria-label="Deposit payments">
                  <Table.Tbody>
                    {(deposits.data?.data ?? []).map((p) => (
                      <Table.Tr key={p.id}>
                        <Table.Td>{formatDate(p.paid_on)}</Table.Td>
                        <Table.Td>{statusLabel(p.method)}</Table.Td>
                        <Table.Td ta="right">{money(p.amount, ws)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </DocumentSection>
          )}
          <Modal opened={paying} onClose={() => setPaying(false)} title="Record deposit" closeButtonProps={{ 'aria-label': 'Close' }}>
            {paying && (
              <PaymentForm
                amount={Math.round((q.deposit_amount - q.deposit_paid) * 100) / 100}
                today={todayIn(ws.timezone)}
                save={(body, { idempotencyKey }) => unwrap(api.POST('/api/v1/quotes/{id}/payments', { params: { path: { id } }, body, headers: { 'idempotency-key': idempotencyKey } }))}
                onDone={() => {
                  void refresh();
                  setPaying(false);
                }}
              />
            )}
          </Modal>
          {q.message && (
            <DocumentSection title="Message">
              <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{q.message}</Text>
            </DocumentSection>
          )}
          {q.approval && (
            <DocumentSection title="Customer's answer">
              <Text>
                Approved by {q.approval.signature_name} on {formatDateTime(q.approval.approved_at, ws.timezone)}
              </Text>
              {q.approval.message && <Text style={{ overflowWrap: 'anywhere' }}>{q.approval.message}</Text>}
            </DocumentSection>
          )}
          <DocumentSection title="Status history">
            {/* A quote made as a draft has no change yet: said, not an empty section (A240). */}
            {q.status_changes.length === 0 && (
              <Text size="sm" c="dimmed">
                No status changes yet.
              </Text>
            )}
            {q.status_changes.map((s) => (
              <Text key={`${s.status}-${s.created_at}`} size="sm">
                {statusLabel(s.status)} · {formatDateTime(s.created_at, ws.timezone)}
              </Text>
            ))}
          </DocumentSection>
          <RecordNotesAndFiles moduleType="quote" moduleId={id} timezone={ws.timezone} />
        </>
      ) : (
        <Loader aria-label="Loading" />
      )}
    </Page>
  );
}
