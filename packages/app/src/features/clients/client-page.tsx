// The client's page (A3): details with Edit, properties, everything of the
// client with status and amount, notes, files, and Send hub link (E7).
import { Alert, Button, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { DocumentSection, RecordSection } from '../../components/documents.tsx';
import { CustomFieldList } from '../../components/custom-fields.tsx';
import { Page } from '../../components/page.tsx';
import { addressLine, fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatClockRange, formatDate, money, statusLabel, todayIn } from '../../lib/format.ts';
import { useCan, useMe } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';
import { useDeferredData, useEagerQuery, useSettled } from '../../lib/query.ts';
import { RecordNotesAndFiles, usePrefetchRecordParts } from '../../components/record-parts.tsx';

export function ClientPage() {
  const id = Number(useParams().id);
  const me = useMe();
  const ws = me.workspace;
  // A2: what the session's scopes cannot do is not offered (the API refuses it anyway).
  const can = useCan();
  const seesQuotes = can('quotes:read');
  const seesInvoices = can('invoices:read');
  const contact = useEagerQuery({ queryKey: ['contacts', id], queryFn: () => unwrap(api.GET('/api/v1/contacts/{id}', { params: { path: { id } } })) });
  usePrefetchRecordParts('contact', id);
  const per = { contact_id: id, per_page: 50, sort_by: 'created_at' as const, sort_direction: 'desc' as const };
  const requests = useEagerQuery({ queryKey: ['requests', 'of', id], queryFn: () => unwrap(api.GET('/api/v1/requests', { params: { query: per } })) });
  const quotes = useEagerQuery({ queryKey: ['quotes', 'of', id], queryFn: () => unwrap(api.GET('/api/v1/quotes', { params: { query: per } })), enabled: seesQuotes });
  const jobs = useEagerQuery({ queryKey: ['jobs', 'of', id], queryFn: () => unwrap(api.GET('/api/v1/jobs', { params: { query: per } })) });
  const invoices = useEagerQuery({ queryKey: ['invoices', 'of', id], queryFn: () => unwrap(api.GET('/api/v1/invoices', { params: { query: per } })), enabled: seesInvoices });
  // A89: visits of the client's jobs and requests from today on (one still running included), not completed or cancelled.
  const today = todayIn(ws.timezone);
  const navigate = useNavigate();
  // A8: "New invoice" makes a draft for this client, dated today, and opens it for editing.
  const newInvoice = useApiAction({
    run: (_: void, { idempotencyKey }) =>
      unwrap(api.POST('/api/v1/invoices', { body: { contact_id: id, date: today, status: 'draft' }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (created) => navigate(`/invoices/${created.data.id}/edit`),
  });
  const upcoming = useEagerQuery({
    queryKey: ['events', 'contact', id, today],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/events', {
          params: { query: { contact_id: id, ends_on_or_after: today, status: 'pending,scheduled,in_progress', per_page: 50, sort_by: 'start_date', sort_direction: 'asc' } },
        }),
      ),
  });
  const properties = useEagerQuery({
    queryKey: ['contacts', id, 'properties'],
    queryFn: () => unwrap(api.GET('/api/v1/contacts/{id}/properties', { params: { path: { id }, query: { per_page: 100 } } })),
  });

  // The name and actions as soon as the client is in; the sections once every read is,
  // in one deferred render (A217) rather than one render per answer.
  const settled = useSettled(contact, requests, quotes, jobs, invoices, upcoming, properties);
  const record = useDeferredData(contact);
  if (contact.isError) return <Page title="Client not found">The client does not exist or was deleted.</Page>;
  if (!record) return <Loader aria-label="Loading" />;
  const c = record.data;

  // Each section its own element, built from its own read: the React Compiler then keeps a
  // section's element (and React skips drawing it) while another read answers (A233). A
  // read's data, not the read (a new object each render), is what a section depends on.
  const quoteList = quotes.data?.data;
  const invoiceList = invoices.data?.data;
  const propertiesSection = (
    <DocumentSection title="Properties">
      {(properties.data?.data ?? []).map((p) => (
        <Text key={p.id} size="sm">
          {addressLine(p.address)}
        </Text>
      ))}
      {can('properties:write') && <AddProperty contactId={id} />}
    </DocumentSection>
  );
  const upcomingSection = (
    <DocumentSection title="Upcoming visits">
      {(upcoming.data?.data ?? []).length === 0 ? (
        <Text size="sm" c="dimmed">
          No upcoming visits.
        </Text>
      ) : (
        <Table aria-label="Upcoming visits">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Date</Table.Th>
              <Table.Th>Time</Table.Th>
              <Table.Th>Visit</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(upcoming.data?.data ?? []).map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{formatDate(e.start_date)}</Table.Td>
                <Table.Td>{e.all_day ? 'All day' : formatClockRange(e.start_time, e.end_time)}</Table.Td>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{e.job_id ? <Link to={`/jobs/${e.job_id}`}>{e.name ?? 'Visit'}</Link> : (e.name ?? 'Visit')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </DocumentSection>
  );
  const requestsSection = (
    <RecordSection
      title="Requests"
      empty="No requests."
      rows={(requests.data?.data ?? []).map((r) => ({ key: r.id, href: `/requests/${r.id}`, title: `Request #${r.number}${r.name ? ` ${r.name}` : ''}`, status: r.status }))}
    />
  );
  const quotesSection = seesQuotes && (
    <RecordSection
      title="Quotes"
      empty="No quotes."
      rows={(quoteList ?? []).map((q) => ({ key: q.id, href: `/quotes/${q.id}`, title: `Quote #${q.number}${q.name ? ` ${q.name}` : ''}`, status: q.status, amount: money(q.total, ws) }))}
    />
  );
  const jobsSection = (
    // A member's jobs come without prices (A14): no amount to show.
    <RecordSection
      title="Jobs"
      empty="No jobs."
      rows={(jobs.data?.data ?? []).map((j) => ({ key: j.id, href: `/jobs/${j.id}`, title: `Job #${j.number}${j.name ? ` ${j.name}` : ''}`, status: j.status, amount: j.total === undefined ? undefined : money(j.total, ws) }))}
    />
  );
  const invoicesSection = seesInvoices && (
    <RecordSection
      title="Invoices"
      empty="No invoices."
      rows={(invoiceList ?? []).map((i) => ({ key: i.id, href: `/invoices/${i.id}`, title: `Invoice #${i.number}`, status: i.status, amount: money(i.balance, ws) }))}
    />
  );

  return (
    <Page
      title={fullName(c)}
      actions={
        <Group gap="xs">
          {can('requests:write') && (
            <Button component={Link} to={`/requests/new?client=${id}`} variant="default">
              New request
            </Button>
          )}
          {can('quotes:write') && (
            <Button component={Link} to={`/quotes/new?client=${id}`} variant="default">
              New quote
            </Button>
          )}
          {can('jobs:write') && (
            <Button component={Link} to={`/jobs/new?client=${id}`} variant="default">
              New job
            </Button>
          )}
          {can('invoices:write') && (
            <Button onClick={() => newInvoice.run()} loading={newInvoice.pending} variant="default">
              New invoice
            </Button>
          )}
        </Group>
      }
    >
      {settled ? (
        <>
          <Paper withBorder p="md">
            <Group justify="space-between" align="start">
              <Stack gap={2}>
                {c.company && <Text fw={600}>{c.company}</Text>}
                {c.email && <Text>{c.email}</Text>}
                {c.phone && <Text>{c.phone}</Text>}
                {/* A client's type is `none` until someone sets one: nothing to say then. */}
                {c.type !== 'none' && (
                  <Text size="sm" c="dimmed">
                    {statusLabel(c.type)}
                  </Text>
                )}
                <CustomFieldList moduleType="contact" values={c.custom_fields} />
              </Stack>
              {can('contacts:write') && (
                <Group gap="xs">
                  <Button component={Link} to={`/clients/${id}/edit`} variant="default">
                    Edit
                  </Button>
                  <HubLink contactId={id} hasEmail={Boolean(c.email)} />
                </Group>
              )}
            </Group>
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            {propertiesSection}
            {upcomingSection}
            {requestsSection}
            {quotesSection}
            {jobsSection}
            {invoicesSection}
            <RecordNotesAndFiles moduleType="contact" moduleId={id} timezone={ws.timezone} />
          </SimpleGrid>
        </>
      ) : (
        <Loader aria-label="Loading" />
      )}
    </Page>
  );
}

/**
 * E7: a new hub link, shown and copied to the clipboard; when the client has an
 * email it is also emailed (A88: `POST /notifications` `hub_link_to_customer`,
 * which mints the emailed link itself, through the message log and templates).
 */
function HubLink({ contactId, hasEmail }: { contactId: number; hasEmail: boolean }) {
  const [copied, setCopied] = useState(false);
  const link = useApiAction({
    run: async (_: void, { idempotencyKey }) => {
      const minted = await unwrap(api.POST('/api/v1/contacts/{id}/hub-link', { params: { path: { id: contactId } }, headers: { 'idempotency-key': idempotencyKey } }));
      const sent = hasEmail
        ? await unwrap(
            api.POST('/api/v1/notifications', { body: { type: 'hub_link_to_customer', module_id: contactId }, headers: { 'idempotency-key': `${idempotencyKey}-email` } }),
          )
        : null;
      return { url: minted.data.url, emailedTo: sent?.data.recipient.email ?? null };
    },
    onSuccess: async (res) => {
      try {
        await navigator.clipboard.writeText(res.url);
        setCopied(true);
      } catch {
        setCopied(false); // no clipboard permission: the link is shown to copy by hand
      }
    },
  });
  return (
    <Stack gap={4}>
      <Button variant="default" onClick={() => link.run()} loading={link.pending}>
        Send hub link
      </Button>
      {link.data && (
        <Alert color="green" variant="default" role="status" maw={360}>
          <TextInput label="Hub link" readOnly value={link.data.url} onFocus={(e) => e.currentTarget.select()} />
          <Text size="xs">
            {copied ? 'Copied to the clipboard.' : 'Copy the link above.'}{' '}
            {link.data.emailedTo ? `Emailed to ${link.data.emailedTo}.` : 'The client has no email: it was not emailed.'}
          </Text>
        </Alert>
      )}
      {link.error && (
        <Text c="red" size="sm" role="alert">
          {link.error.message}
        </Text>
      )}
    </Stack>
  );
}

function AddProperty({ contactId }: { contactId: number }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { street: '', city: '', state: '', postal_code: '', country: '' },
    submit: (v, { idempotencyKey }) =>
      unwrap(
        api.POST('/api/v1/contacts/{id}/properties', {
          params: { path: { id: contactId } },
          body: { address: Object.fromEntries(Object.entries(v).filter(([, x]) => x.trim() !== '')) },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    onSuccess: () => {
      form.reset();
      setOpen(false);
      void client.invalidateQueries({ queryKey: ['contacts', contactId, 'properties'] });
    },
  });
  if (!open)
    return (
      <Button variant="default" onClick={() => setOpen(true)} style={{ alignSelf: 'flex-start' }}>
        Add property
      </Button>
    );
  return (
    <form onSubmit={onSubmit}>
      <FormError error={error} />
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        <TextInput label="Street" {...form.getInputProps('street')} />
        <TextInput label="City" {...form.getInputProps('city')} />
        <TextInput label="State" {...form.getInputProps('state')} />
        <TextInput label="Postal code" {...form.getInputProps('postal_code')} />
        <TextInput label="Country" {...form.getInputProps('country')} />
      </SimpleGrid>
      <Group mt="xs">
        <Button type="submit" loading={pending}>
          Save property
        </Button>
        <Button variant="subtle" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}
