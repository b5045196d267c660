// Jobs (A3): list by status; New job through the shared editor; the job's page
// with items, visits ("Schedule visit": a date and time form until the
// schedule's visit form exists), time logged, notes, files, status changes and
// Create invoice (E6).
import type { components } from '@fieldwork/client';
import { Alert, Button, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { ComboSelect } from '../../components/combo-select.tsx';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router';
import { useApiAction } from '../../components/api-action.tsx';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { pageQuery } from '../../components/data-list.tsx';
import { clientColumn, ListPage, tabStatus } from '../../components/list-page.tsx';
import { DocumentEditor, documentBody, documentValues } from '../../components/document-editor.tsx';
import { DocumentSection, DocumentView, RecordSection } from '../../components/documents.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { Expenses } from './expenses.tsx';
import { NotFound } from '../../components/not-found.tsx';
import { CustomFieldList } from '../../components/custom-fields.tsx';
import { Page } from '../../components/page.tsx';
import { addressLine, fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useDeferredData } from '../../lib/query.ts';
import { allPages } from '../../lib/pages.ts';
import { formatClockRange, formatDate, formatTime, money, statusLabel, todayIn } from '../../lib/format.ts';
import { useCan, useMe } from '../../lib/session.ts';
import { asInvoicing, INVOICING, jobErrorPath, type ScheduleBody, type ScheduleValues, type StoredSchedule, sameSchedule, scheduleBody, scheduleErrors, scheduleValues } from './recurrence.ts';
import { type JobFields, type JobValues, ScheduleFields } from './schedule-fields.tsx';
import { RecordNotesAndFiles, usePrefetchRecordParts } from '../../components/record-parts.tsx';

const STATUSES = ['draft', 'scheduled', 'in_progress', 'completed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];
const TO_INVOICE = 'to_invoice';
const asStatus = (v: string | null | undefined): Status | undefined => STATUSES.find((s) => s === v);

export default function JobsRoutes() {
  return (
    <Routes>
      <Route index element={<JobsList />} />
      <Route path="new" element={<JobEditor />} />
      <Route path=":id" element={<JobPage />} />
      <Route path=":id/edit" element={<JobEditor />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

function JobsList() {
  const ws = useMe().workspace;
  return (
    <ListPage<components['schemas']['JobListItem']>
      title="Jobs"
      path="/jobs"
      queryKey="jobs"
      newLabel="New job"
      // A158: Home's "Jobs to invoice" opens the last tab: completed, no invoice yet.
      tabs={[...STATUSES, { value: TO_INVOICE, label: 'To invoice' }]}
      columns={[
        { key: 'number', label: 'Job', sortable: true, render: (j) => `Job #${j.number}` },
        clientColumn(),
        { key: 'name', label: 'Title', wide: true, render: (j) => j.name ?? '' },
        { key: 'status', label: 'Status', render: (j) => <StatusBadge status={j.status} /> },
        { key: 'total', label: 'Total', sortable: true, render: (j) => money(j.total, ws) },
      ]}
      fetchPage={(p) => unwrap(api.GET('/api/v1/jobs', { params: { query: { expand: 'contact', ...pageQuery(p, ['number', 'total', 'created_at'] as const), ...(p.tab === TO_INVOICE ? { to_invoice: true } : { status: tabStatus(STATUSES, p.tab) }) } } }))}
      empty="No jobs."
    />
  );
}

function JobEditor() {
  const id = Number(useParams().id) || null;
  const [params] = useSearchParams();
  const ws = useMe().workspace;
  const navigate = useNavigate();
  const client = useQueryClient();
  const job = useQuery({ queryKey: ['jobs', id], queryFn: () => unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id: id ?? 0 } } })), enabled: id !== null });
  if (id !== null && !job.data) return job.isError ? <Page title="Job not found" /> : <Loader aria-label="Loading" />;
  const j = job.data?.data ?? null;
  const today = todayIn(ws.timezone);
  const initial: JobValues = { ...documentValues(j, Number(params.get('client')) || null), schedule: scheduleValues(j?.schedule ?? null, today), invoicing: asInvoicing(j?.invoicing) };
  return (
    <Page title={j ? `Edit job #${j.number}` : 'New job'}>
      <DocumentEditor<JobFields>
        initial={initial}
        moduleType="job"
        create={id === null}
        saveLabel="Save job"
        workspace={ws}
        withMessage={false}
        fields={(form) => <ScheduleFields form={form} today={today} />}
        validate={(v) => scheduleErrors(v.schedule)}
        errorPath={jobErrorPath}
        submit={(v, ctx) => {
          const { idempotencyKey } = ctx;
          const body = { ...documentBody(v, ctx), invoicing: v.invoicing, ...scheduleChange(v.schedule, j) };
          const headers = { 'idempotency-key': idempotencyKey };
          return id === null ? unwrap(api.POST('/api/v1/jobs', { body, headers })) : unwrap(api.PUT('/api/v1/jobs/{id}', { params: { path: { id } }, body, headers }));
        }}
        onSaved={(saved) => {
          void client.invalidateQueries({ queryKey: ['jobs'] });
          void client.invalidateQueries({ queryKey: ['events'] });
          navigate(`/jobs/${saved}`);
        }}
      />
    </Page>
  );
}

/**
 * What a save says about the series: a repeating job is `recurring` with its
 * schedule, sent only when it changed (A142); "Never" on a job that had one
 * ends it (E21); a job that never had one is left as it is.
 */
function scheduleChange(values: ScheduleValues, stored: { type: string; schedule?: StoredSchedule | null } | null): { type?: 'one-off' | 'recurring'; schedule?: ScheduleBody | null } {
  const body = scheduleBody(values);
  if (body) return { type: 'recurring', ...(stored?.schedule && sameSchedule(body, stored.schedule) ? {} : { schedule: body }) };
  return stored?.schedule ? { type: 'one-off', schedule: null } : {};
}

function JobPage() {
  const id = Number(useParams().id);
  const ws = useMe().workspace;
  // A2: what the session's scopes cannot do is not offered (the API refuses it anyway).
  const can = useCan();
  const writes = can('jobs:write');
  const seesInvoices = can('invoices:read');
  const navigate = useNavigate();
  const client = useQueryClient();
  const job = useQuery({ queryKey: ['jobs', id], queryFn: () => unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id } } })) });
  usePrefetchRecordParts('job', id);
  // Every visit of the job: a series makes a year of them.
  const visits = useQuery({
    queryKey: ['events', 'job', id],
    queryFn: () => allPages('/api/v1/events', { query: { job_id: id, per_page: 100, sort_by: 'start_date', sort_direction: 'asc' } }),
  });
  const skip = useMutation({
    mutationFn: (visitId: number) => unwrap(api.DELETE('/api/v1/events/{id}', { params: { path: { id: visitId } } })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['events'] }), client.invalidateQueries({ queryKey: ['jobs', id] })]),
  });
  const time = useQuery({ queryKey: ['time-entries', 'job', id], queryFn: () => unwrap(api.GET('/api/v1/time-entries', { params: { query: { job_id: id, per_page: 100 } } })) });
  const invoices = useQuery({
    queryKey: ['invoices', 'job', id],
    queryFn: () => unwrap(api.GET('/api/v1/invoices', { params: { query: { job_id: id, per_page: 50 } } })),
    enabled: seesInvoices,
  });
  const status = useApiAction({
    run: (s: Status, { idempotencyKey }) => unwrap(api.PUT('/api/v1/jobs/{id}/status', { params: { path: { id } }, body: { status: s }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['jobs'] }),
  });
  const createInvoice = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.POST('/api/v1/jobs/{id}/create-invoice', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['invoices'] });
      navigate(`/invoices/${res.data.id}`);
    },
  });
  const record = useDeferredData(job);
  if (job.isError) return <Page title="Job not found">The job does not exist or was deleted.</Page>;
  if (!record) return <Loader aria-label="Loading" />;
  const j = record.data;
  const hours = (time.data?.data ?? []).reduce((sum, t) => sum + t.total_time, 0);
  const failure = status.error ?? createInvoice.error ?? skip.error;
  return (
    <Page
      title={`Job #${j.number}`}
      actions={
        <Group gap="xs">
          {writes && (
            <Button component={Link} to={`/jobs/${id}/edit`} variant="default">
              Edit
            </Button>
          )}
          {can('invoices:write') && (
            <Button onClick={() => createInvoice.run()} loading={createInvoice.pending}>
              Create invoice
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
      <Paper withBorder p="md">
        <Group justify="space-between" align="start" wrap="wrap">
          <Stack gap={2}>
            {j.name && <Text fw={600}>{j.name}</Text>}
            {j.contact && <Link to={`/clients/${j.contact.id}`}>{fullName(j.contact)}</Link>}
            {j.property && (
              <Text>
                <VisuallyHidden>Service address: </VisuallyHidden>
                {addressLine(j.property.address)}
              </Text>
            )}
            {j.property?.access_notes && <AccessNotes notes={j.property.access_notes} />}
            {j.quote && <Link to={`/quotes/${j.quote.id}`}>{`From quote #${j.quote.number}`}</Link>}
            {/* Once: those who may change it see it in "Status", the rest as a badge. */}
            {!writes && <StatusBadge status={j.status} />}
            {j.schedule && <Series schedule={j.schedule} />}
            {j.invoicing && j.invoicing !== 'manual' && <Text size="sm">{`Invoicing: ${INVOICING.find((i) => i.value === j.invoicing)?.label ?? j.invoicing}`}</Text>}
            <CustomFieldList moduleType="job" values={j.custom_fields} />
          </Stack>
          {writes && (
          <ComboSelect
            label="Status"
            allowDeselect={false}
            data={STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))}
            value={j.status}
            onChange={(v) => {
              const s = asStatus(v);
              if (s) status.run(s);
            }}
            maw={220}
          />
          )}
        </Group>
      </Paper>
      {j.line_items && j.total !== undefined && (
        // A member's job comes without prices (A14): no priced document to show.
        <DocumentView items={j.line_items} pricing={{ discount: j.discount ?? 0, discount_unit: j.discount_unit ?? '%', tax_rate: j.tax_rate ?? 0, tax_rate_id: j.tax_rate_id ?? null, deposit: j.deposit ?? 0 }} workspace={ws} />
      )}
      <DocumentSection title="Visits">
        {(visits.data ?? []).length === 0 ? (
          <Text size="sm" c="dimmed">
            No visits yet.
          </Text>
        ) : (
          // Three columns, so a phone shows every visit's "Skip" without scrolling sideways.
          <Table aria-label="Visits">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Visit</Table.Th>
                <Table.Th>Status</Table.Th>
                {writes && (
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(visits.data ?? []).map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>
                    <div>
                      {formatDate(e.start_date)}
                      {e.end_date !== e.start_date ? ` – ${formatDate(e.end_date)}` : ''}
                    </div>
                    <Text size="sm">{e.all_day || !e.start_time ? 'All day' : `${clock(e.start_time)}${e.end_time ? ` – ${clock(e.end_time)}` : ''}`}</Text>
                    {e.name && e.name !== j.name ? (
                      <Text size="xs" c="dimmed">
                        {e.name}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={e.status} />
                    <Text size="sm">
                      <Billed visit={e} />
                    </Text>
                  </Table.Td>
                  {writes && (
                    <Table.Td>
                      {e.occurrence_date !== null && e.status === 'scheduled' && (
                        <Button size="compact-sm" variant="default" loading={skip.isPending && skip.variables === e.id} onClick={() => skip.mutate(e.id)}>
                          Skip
                        </Button>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {writes && <ScheduleVisit jobId={id} name={j.name} today={todayIn(ws.timezone)} />}
      </DocumentSection>
      <DocumentSection title="Time logged">
        <Text size="sm">{`${Math.round(hours * 100) / 100} hours`}</Text>
      </DocumentSection>
      {j.expenses && <Expenses jobId={id} expenses={j.expenses} writes={writes} today={todayIn(ws.timezone)} workspace={ws} />}
      {seesInvoices && (
        <RecordSection
          title="Invoices"
          empty="No invoices."
          rows={(invoices.data?.data ?? []).map((i) => ({ key: i.id, href: `/invoices/${i.id}`, title: `Invoice #${i.number}`, status: i.status, amount: money(i.total, ws) }))}
        />
      )}
      <RecordNotesAndFiles moduleType="job" moduleId={id} timezone={ws.timezone} />
    </Page>
  );
}

/** The property's gate codes, pets and keys, kept as typed (line breaks too). */
function AccessNotes({ notes }: { notes: string }) {
  return (
    <Paper withBorder p="xs" bg="yellow.0" maw={480}>
      <Text size="sm" fw={600}>
        Access notes
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {notes}
      </Text>
    </Paper>
  );
}

const clock = (t: string) => formatTime(`2000-01-01T${t}:00Z`, 'UTC');

/** The series in words (E20's description), its next visit and the dates skipped. */
function Series({ schedule }: { schedule: { description: string; next_visit_on: string | null; skipped_dates: string[] } }) {
  return (
    <Stack gap={2}>
      <Text size="sm" fw={500}>
        {schedule.description}
      </Text>
      <Text size="sm">
        <Text span fw={500} size="sm">
          Next visit:
        </Text>{' '}
        {schedule.next_visit_on ? formatDate(schedule.next_visit_on) : 'none planned'}
      </Text>
      {schedule.skipped_dates.length > 0 && <Text size="sm">{`Skipped: ${schedule.skipped_dates.map(formatDate).join('; ')}`}</Text>}
    </Stack>
  );
}

/** Whether a visit is billed (E22's invoice_id; "Not billed" where the API has no such field). */
function Billed({ visit }: { visit: object }) {
  const invoiceId = 'invoice_id' in visit && typeof visit.invoice_id === 'number' ? visit.invoice_id : null;
  return invoiceId === null ? 'Not billed' : <Link to={`/invoices/${invoiceId}`}>Billed</Link>;
}

function ScheduleVisit({ jobId, name, today }: { jobId: number; name: string | null; today: string }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { start_date: today, start_time: '09:00', end_time: '10:00' },
    submit: (v, { idempotencyKey }) =>
      unwrap(
        api.POST('/api/v1/events', {
          body: { job_id: jobId, name, type: 'appointment', start_date: v.start_date, end_date: v.start_date, start_time: v.start_time || null, end_time: v.end_time || null },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    onSuccess: () => {
      setOpen(false);
      void client.invalidateQueries({ queryKey: ['events'] });
    },
  });
  if (!open)
    return (
      <Button variant="default" onClick={() => setOpen(true)} style={{ alignSelf: 'flex-start' }}>
        Schedule visit
      </Button>
    );
  return (
    <form onSubmit={onSubmit}>
      <FormError error={error} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs" maw={640}>
        <TextInput label="Date" type="date" {...form.getInputProps('start_date')} />
        <TextInput label="Start time" type="time" {...form.getInputProps('start_time')} />
        <TextInput label="End time" type="time" {...form.getInputProps('end_time')} />
      </SimpleGrid>
      <Group mt="xs">
        <Button type="submit" loading={pending}>
          Save visit
        </Button>
        <Button variant="subtle" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </Group>
    </form>
  );
}
