// Invoices (A3): list by status with balance (overdue marked), the editor
// (the shared one, with payment terms deriving the due date as E2 does on the
// server), and the invoice's page: Send to client, Download PDF, Record
// payment (E3's errors in the dialog), Void per payment, E4's status.
import type { components } from '@fieldwork/client';
import { Alert, Button, Group, Loader, Modal, Paper, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { ComboSelect } from '../../components/combo-select.tsx';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { useApiAction } from '../../components/api-action.tsx';
import { PaymentForm } from '../../components/payment-form.tsx';
import { BatchPage } from './batch-page.tsx';
import { pageQuery } from '../../components/data-list.tsx';
import { clientColumn, ListPage, tabStatus } from '../../components/list-page.tsx';
import { DocumentEditor, documentBody, documentValues } from '../../components/document-editor.tsx';
import { DocumentSection, DocumentView } from '../../components/documents.tsx';
import { QueuedMessage } from '../../components/queued-message.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { NotFound } from '../../components/not-found.tsx';
import { CustomFieldList } from '../../components/custom-fields.tsx';
import { Page } from '../../components/page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useDeferredData } from '../../lib/query.ts';
import { formatDate, money, statusLabel, todayIn } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { RecordNotesAndFiles, usePrefetchRecordParts } from '../../components/record-parts.tsx';

/** A8: the statuses of an invoice that went out and can be voided (cancelled). */
const VOIDABLE = ['scheduled', 'sent', 'partially_paid', 'overdue'];
const STATUSES = ['draft', 'scheduled', 'sent', 'partially_paid', 'overdue', 'paid', 'cancelled'] as const;
const TERMS = ['due_on_receipt', 'net_7', 'net_14', 'net_30', 'net_60', 'net_90'] as const;
type Terms = (typeof TERMS)[number];
const asTerms = (v: string | undefined): Terms | undefined => TERMS.find((t) => t === v);

export default function InvoicesRoutes() {
  return (
    <Routes>
      <Route index element={<InvoicesList />} />
      <Route path="batch" element={<BatchPage />} />
      <Route path=":id" element={<InvoicePage />} />
      <Route path=":id/edit" element={<InvoiceEditor />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

function InvoicesList() {
  const ws = useMe().workspace;
  return (
    <ListPage<components['schemas']['InvoiceListItem']>
      title="Invoices"
      path="/invoices"
      queryKey="invoices"
      tabs={STATUSES}
      columns={[
        { key: 'number', label: 'Invoice', sortable: true, render: (i) => `Invoice #${i.number}` },
        clientColumn(),
        { key: 'status', label: 'Status', render: (i) => <StatusBadge status={i.status} /> },
        { key: 'total', label: 'Total', sortable: true, wide: true, render: (i) => money(i.total, ws) },
        { key: 'balance', label: 'Balance', render: (i) => (i.status === 'overdue' ? <Text c="red.9" fw={600} size="sm">{`${money(i.balance, ws)} overdue`}</Text> : money(i.balance, ws)) },
        { key: 'due_date', label: 'Due', sortable: true, wide: true, render: (i) => formatDate(i.due_date) },
      ]}
      fetchPage={(p) =>
        unwrap(api.GET('/api/v1/invoices', { params: { query: { expand: 'contact', ...pageQuery(p, ['number', 'total', 'due_date', 'created_at'] as const), status: tabStatus(STATUSES, p.tab) } } }))
      }
      empty="No invoices."
      actions={
        <Button component={Link} to="/invoices/batch" variant="default">
          Invoice work
        </Button>
      }
    />
  );
}

function InvoiceEditor() {
  const id = Number(useParams().id);
  const ws = useMe().workspace;
  const navigate = useNavigate();
  const client = useQueryClient();
  const invoice = useQuery({ queryKey: ['invoices', id], queryFn: () => unwrap(api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })) });
  if (!invoice.data) return invoice.isError ? <Page title="Invoice not found" /> : <Loader aria-label="Loading" />;
  const inv = invoice.data.data;
  return (
    <Page title={`Edit invoice #${inv.number}`}>
      <DocumentEditor
        initial={documentValues(inv, null, { date: inv.date ?? '', payment_terms: inv.payment_terms ?? '', due_date: inv.due_date ?? '' })}
        moduleType="invoice"
        create={false}
        saveLabel="Save invoice"
        workspace={ws}
        extra={(bind) => (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="Issue date" type="date" value={bind('date').value} onChange={(e) => bind('date').onChange(e.currentTarget.value)} />
            <ComboSelect
              label="Payment terms"
              clearable
              data={TERMS.map((t) => ({ value: t, label: statusLabel(t).replace('Net ', 'Net ') }))}
              value={bind('payment_terms').value || null}
              onChange={(v) => bind('payment_terms').onChange(v ?? '')}
            />
            <TextInput label="Due date" type="date" description="Empty: from the terms" value={bind('due_date').value} onChange={(e) => bind('due_date').onChange(e.currentTarget.value)} />
          </SimpleGrid>
        )}
        submit={(v, ctx) => {
          const { idempotencyKey } = ctx;
          const terms = asTerms(v.extra.payment_terms);
          // E2: a due date left empty is derived by the server from the date and the terms.
          const dueChanged = v.extra.due_date !== (inv.due_date ?? '');
          const body = {
            ...documentBody(v, ctx),
            message: v.message.trim() || null,
            date: v.extra.date || null,
            ...(terms ? { payment_terms: terms } : {}),
            ...(dueChanged && v.extra.due_date ? { due_date: v.extra.due_date } : {}),
          };
          return unwrap(api.PUT('/api/v1/invoices/{id}', { params: { path: { id } }, body, headers: { 'idempotency-key': idempotencyKey } }));
        }}
        onSaved={(saved) => {
          void client.invalidateQueries({ queryKey: ['invoices'] });
          navigate(`/invoices/${saved}`);
        }}
      />
    </Page>
  );
}

function InvoicePage() {
  const id = Number(useParams().id);
  const ws = useMe().workspace;
  const client = useQueryClient();
  const [paying, setPaying] = useState(false);
  const invoice = useQuery({ queryKey: ['invoices', id], queryFn: () => unwrap(api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })) });
  usePrefetchRecordParts('invoice', id);
  const payments = useQuery({ queryKey: ['invoices', id, 'payments'], queryFn: () => unwrap(api.GET('/api/v1/invoices/{id}/payments', { params: { path: { id } } })) });
  const refresh = () => client.invalidateQueries({ queryKey: ['invoices'] });
  const send = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.POST('/api/v1/notifications', { body: { type: 'invoice_to_customer', module_id: id }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
  });
  const navigate = useNavigate();
  // A8: "Delete" a draft, "Void" (cancel) one that went out; E22: either makes its visits billable again.
  const remove = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.DELETE('/api/v1/invoices/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['invoices'] });
      navigate('/invoices');
    },
  });
  const cancel = useApiAction({
    run: (_: void, { idempotencyKey }) =>
      unwrap(api.PUT('/api/v1/invoices/{id}/status', { params: { path: { id } }, body: { status: 'cancelled' }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
  });
  const voidPayment = useApiAction({
    run: (paymentId: number, { idempotencyKey }) =>
      unwrap(api.DELETE('/api/v1/invoices/{id}/payments/{paymentId}', { params: { path: { id, paymentId } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
  });
  const record = useDeferredData(invoice);
  if (invoice.isError) return <Page title="Invoice not found">The invoice does not exist or was deleted.</Page>;
  if (!record) return <Loader aria-label="Loading" />;
  const inv = record.data;
  const failure = send.error ?? voidPayment.error ?? remove.error ?? cancel.error;
  return (
    <Page
      title={`Invoice #${inv.number}`}
      actions={
        <Group gap="xs">
          <Button component={Link} to={`/invoices/${id}/edit`} variant="default">
            Edit
          </Button>
          <Button onClick={() => send.run()} loading={send.pending}>
            Send to client
          </Button>
          <Button component="a" href={`/api/v1/invoices/${id}/pdf`} download variant="default">
            Download PDF
          </Button>
          <Button variant="default" onClick={() => setPaying(true)}>
            Record payment
          </Button>
          {inv.status === 'draft' && (
            <Button variant="default" color="red" onClick={() => remove.run()} loading={remove.pending}>
              Delete
            </Button>
          )}
          {VOIDABLE.includes(inv.status) && (
            <Button variant="default" color="red" onClick={() => cancel.run()} loading={cancel.pending}>
              Void
            </Button>
          )}
        </Group>
      }
    >
      {failure && (
        <Alert color="red" role="alert">
          {failure.message}
        </Alert>
      )}
      {send.data && <QueuedMessage to={send.data.data.recipient.email} />}
      <Paper withBorder p="md">
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Status
            </Text>
            <StatusBadge status={inv.status} />
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Due date
            </Text>
            <Text>{inv.due_date ? formatDate(inv.due_date) : 'None'}</Text>
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Amount paid
            </Text>
            <Text data-testid="amount-paid">{money(inv.amount_paid, ws)}</Text>
          </Stack>
          <Stack gap={0}>
            <Text size="xs" c="dimmed">
              Balance
            </Text>
            <Text fw={600} data-testid="balance">
              {money(inv.balance, ws)}
            </Text>
          </Stack>
        </SimpleGrid>
        {inv.contact && (
          <Text mt="xs">
            <Link to={`/clients/${inv.contact.id}`}>{fullName(inv.contact)}</Link>
          </Text>
        )}
        <CustomFieldList moduleType="invoice" values={inv.custom_fields} />
      </Paper>
      <DocumentView items={inv.line_items} pricing={inv} workspace={ws} />
      <DocumentSection title="Payments">
        {(payments.data?.data ?? []).length === 0 ? (
          <Text size="sm" c="dimmed">
            No payments yet.
          </Text>
        ) : (
          <Table aria-label="Payments">
            <Table.Tbody>
              {(payments.data?.data ?? []).map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td>{formatDate(p.paid_on)}</Table.Td>
                  <Table.Td>{statusLabel(p.method)}</Table.Td>
                  <Table.Td ta="right">{money(p.amount, ws)}</Table.Td>
                  <Table.Td ta="right">
                    <Button size="compact-sm" variant="subtle" color="red" aria-label={`Void payment of ${money(p.amount, ws)}`} loading={voidPayment.variables === p.id} onClick={() => voidPayment.run(p.id)}>
                      Void
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </DocumentSection>
      <RecordNotesAndFiles moduleType="invoice" moduleId={id} timezone={ws.timezone} />
      <Modal opened={paying} onClose={() => setPaying(false)} title="Record payment" closeButtonProps={{ 'aria-label': 'Close' }}>
        {paying && (
          <PaymentForm
            amount={inv.balance}
            today={todayIn(ws.timezone)}
            save={(body, { idempotencyKey }) => unwrap(api.POST('/api/v1/invoices/{id}/payments', { params: { path: { id } }, body, headers: { 'idempotency-key': idempotencyKey } }))}
            onDone={() => {
              void client.invalidateQueries({ queryKey: ['invoices'] });
              setPaying(false);
            }}
          />
        )}
      </Modal>
    </Page>
  );
}
