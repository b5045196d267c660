// My day (A4): a member's Home, built for a 375 px phone. Today's visits
// assigned to me in time order with what the crew needs on site, and the
// buttons that change the visit (its status), the job (notes, photos) and my
// time (one time entry per stretch on the visit's job). A running clock is a
// time entry with a start and no end: it lives in the API, so a reload or a lost
// connection does not stop it.
import type { components } from '@fieldwork/client';
import { Anchor, Button, Card, Group, Image, Stack, Text, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { StatusBadge } from '../../components/status-badge.tsx';
import { formatDate, formatClock, nowIn } from '../../lib/format.ts';
import { allPages } from '../../lib/pages.ts';
import { useMe } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';

type Visit = components['schemas']['EventListItem'];
type Entry = components['schemas']['TimeEntry'];

const at = formatClock;
const fail = (title: string) => (err: Error) => notifications.show({ color: 'red', title, message: err.message });

export default function MyDayPage() {
  const me = useMe();
  const today = nowIn(me.workspace.timezone).date;
  const visits = useQuery({
    queryKey: ['events', 'mine', today],
    queryFn: async () => {
      const rows = await allPages('/api/v1/events', { query: { ends_on_or_after: today, starts_on_or_before: today, assignee_ids: me.user.id, per_page: 100 } });
      return rows.filter((v) => v.status !== 'cancelled').sort((a, b) => (a.all_day ? '' : (a.start_time ?? '')).localeCompare(b.all_day ? '' : (b.start_time ?? '')) || a.id - b.id);
    },
  });
  // My open stretches of today: at most one runs per job.
  const running = useQuery({
    queryKey: ['time-entries', 'mine', today],
    queryFn: () => allPages('/api/v1/time-entries', { query: { user_id: me.user.id, start_date: today, per_page: 100 } }),
  });
  const open = (running.data ?? []).filter((e) => e.start_time !== null && e.end_time === null);

  return (
    <Page title="My day">
      <Text c="dimmed">{formatDate(today)}</Text>
      {visits.error && <Text c="red">{visits.error.message}</Text>}
      {visits.data?.length === 0 && <Text>No visits for you today.</Text>}
      <Stack gap="md" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Today's visits">
        {visits.data?.map((v) => (
          <li key={v.id}>
            <VisitCard visit={v} today={today} timezone={me.workspace.timezone} userId={me.user.id} clock={open.find((e) => e.job_id === v.job_id) ?? null} />
          </li>
        ))}
      </Stack>
    </Page>
  );
}

function VisitCard({ visit, today, timezone, userId, clock }: { visit: Visit; today: string; timezone: string | null; userId: string; clock: Entry | null }) {
  const client = useQueryClient();
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState('');
  const photo = useRef<HTMLInputElement>(null);
  const jobId = visit.job_id;
  // Notes and photos go to the job (a member's session may comment and upload on what
  // it can read, A1), to the visit only when it has no job.
  const parent = jobId !== null ? { module_type: 'job' as const, module_id: jobId } : { module_type: 'event' as const, module_id: visit.id };
  const job = useQuery({
    queryKey: ['jobs', jobId],
    enabled: jobId !== null,
    queryFn: async () => (await unwrap(api.GET('/api/v1/jobs/{id}', { params: { path: { id: jobId ?? 0 } } }))).data,
  });
  const photos = useQuery({
    queryKey: ['uploads', parent.module_type, parent.module_id],
    // The same key and shape as the job page's Files: what is added here shows there too.
    queryFn: () => unwrap(api.GET('/api/v1/uploads', { params: { query: { ...parent, per_page: 100 } } })),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['events'] });
  const status = useApiAction({
    run: (next: 'in_progress' | 'completed', { idempotencyKey }) =>
      unwrap(api.PUT('/api/v1/events/{id}/status', { params: { path: { id: visit.id } }, body: { status: next }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: refresh,
    onError: fail('The visit was not changed'),
  });
  const comment = useApiAction({
    run: (text: string, { idempotencyKey }) =>
      unwrap(api.POST('/api/v1/comments', { body: { ...parent, comment: text }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['comments', parent.module_type, parent.module_id] });
      setNote('');
      setNoting(false);
      notifications.show({ color: 'green', message: 'Note added' });
    },
    onError: fail('The note was not added'),
  });
  const upload = useApiAction({
    run: (file: File, { idempotencyKey }) => {
      const form = new FormData();
      form.set('module_type', parent.module_type);
      form.set('module_id', String(parent.module_id));
      form.set('file', file);
      // multipart: the typed body names the fields, the FormData carries the file
      return unwrap(api.POST('/api/v1/uploads', { body: { file: '', ...parent }, bodySerializer: () => form, headers: { 'idempotency-key': idempotencyKey } }));
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['uploads', parent.module_type, parent.module_id] }),
    onError: fail('The photo was not added'),
  });
  const clockIn = useApiAction({
    run: (_: void, { idempotencyKey }) => {
      const now = nowIn(timezone);
      return unwrap(
        api.POST('/api/v1/time-entries', {
          body: { start_date: now.date, end_date: now.date, start_time: now.time, user_id: userId, job_id: jobId, description: visit.name },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      );
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['time-entries'] }),
    onError: fail('Could not clock in'),
  });
  const clockOut = useApiAction({
    run: (entry: Entry, { idempotencyKey }) => {
      const now = nowIn(timezone);
      return unwrap(api.PUT('/api/v1/time-entries/{id}', { params: { path: { id: entry.id } }, body: { end_date: now.date, end_time: now.time }, headers: { 'idempotency-key': idempotencyKey } }));
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['time-entries'] }),
    onError: fail('Could not clock out'),
  });

  const j = job.data;
  const address = j?.property?.address;
  const addressText = address ? [address.street, address.street_2, address.city, address.state, address.postal_code].filter(Boolean).join(', ') : '';
  const title = visit.name ?? j?.name ?? 'Visit';
  return (
    <Card withBorder padding="sm" component="article" aria-label={title}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={2} size="h4">
            {title}
          </Title>
          <StatusBadge status={visit.status} />
        </Group>
        <Text fw={600}>{visit.all_day || !visit.start_time ? 'All day' : `${at(visit.start_time)}${visit.end_time ? ` – ${at(visit.end_time)}` : ''}`}</Text>
        {j?.contact && <Text>{`${j.contact.first_name} ${j.contact.last_name}`}</Text>}
        {addressText && (
          <Text>
            {addressText}{' '}
            <Anchor href={`https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(addressText)}`} target="_blank" rel="noopener noreferrer">
              Directions
            </Anchor>
          </Text>
        )}
        {j?.contact?.phone && (
          <Anchor href={`tel:${j.contact.phone.replace(/[^\d+]/g, '')}`}>{j.contact.phone}</Anchor>
        )}
        {visit.description && (
          <div>
            <Text fw={600} size="sm">
              Instructions
            </Text>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{visit.description}</Text>
          </div>
        )}
        {j?.line_items && j.line_items.length > 0 && (
          <ul style={{ margin: 0, paddingLeft: '1.2rem' }} aria-label="Line items">
            {j.line_items.map((li) => (
              <li key={li.id}>
                {li.quantity} × {li.name}
              </li>
            ))}
          </ul>
        )}
        <Group gap="xs">
          {visit.status !== 'in_progress' && visit.status !== 'completed' && (
            <Button onClick={() => status.run('in_progress')} loading={status.pending}>
              Start visit
            </Button>
          )}
          {visit.status !== 'completed' && (
            <Button onClick={() => status.run('completed')} loading={status.pending} variant={visit.status === 'in_progress' ? 'filled' : 'default'}>
              Complete visit
            </Button>
          )}
          {clock ? (
            <Button color="#b02525" onClick={() => clockOut.run(clock)} loading={clockOut.pending}>
              Clock out
            </Button>
          ) : (
            <Button color="#0a5f6e" onClick={() => clockIn.run()} loading={clockIn.pending}>
              Clock in
            </Button>
          )}
          <Button variant="default" onClick={() => setNoting((n) => !n)} aria-expanded={noting}>
            Add note
          </Button>
          <Button variant="default" onClick={() => photo.current?.click()} loading={upload.pending}>
            Add photo
          </Button>
        </Group>
        {clock && <Text size="sm">Clocked in since {at(clock.start_time)}{clock.start_date !== today ? ` (${formatDate(clock.start_date)})` : ''}</Text>}
        <input
          ref={photo}
          type="file"
          accept="image/*"
          capture="environment"
          hidden
          aria-label="Photo"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) upload.run(file);
            e.target.value = '';
          }}
        />
        {noting && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (note.trim() && !comment.pending) comment.run(note.trim());
            }}
          >
            <Stack gap={6}>
              <Textarea label="Note" value={note} onChange={(e) => setNote(e.currentTarget.value)} autosize minRows={2} />
              <Group justify="flex-end">
                <Button type="submit" loading={comment.pending}>
                  Save note
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {(photos.data?.data.length ?? 0) > 0 && (
          <Group gap={6} aria-label="Photos">
            {photos.data?.data.map((p) =>
              p.mime_type.startsWith('image/') ? (
                <Image key={p.link_id} src={p.url} alt={p.name} w={72} h={72} fit="cover" radius="sm" />
              ) : (
                <Anchor key={p.link_id} href={p.url}>
                  {p.name}
                </Anchor>
              ),
            )}
          </Group>
        )}
      </Stack>
    </Card>
  );
}
