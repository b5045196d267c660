// My day (A4, A12): a member's Home, built for a 375 px phone. Today's visits
// assigned to me in time order with what the crew needs on site, and the
// buttons that change the visit (its status), the job (notes, photos) and my
// time (one time entry per stretch on the visit's job). A running clock is a
// time entry with a start and no end: it lives in the API, so a reload or a lost
// connection does not stop it. With no network the page opens from what the
// phone saved (day.ts) and every button still works: its write waits in the
// queue (lib/write-queue.ts) and is sent, once, when the network returns.
import { Alert, Anchor, Badge, Button, Card, Group, Image, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApiAction } from '../../components/api-action.tsx';
import { Page } from '../../components/page.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { GrowingTextarea } from '../../components/growing-textarea.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatClock, formatDate, formatDateTime, nowIn } from '../../lib/format.ts';
import { useEagerQuery, useSettled } from '../../lib/query.ts';
import { ownerOf } from '../../lib/offline-store.ts';
import { type Me, useSession } from '../../lib/session.ts';
import { dismissWrite, type QueuedWrite, submitWrite, useWriteQueue, whenAccepted } from '../../lib/write-queue.ts';
import { type Clock, type DayVisit, loadDay, withWaiting } from './day.ts';

const at = formatClock;
const LABELS: Record<QueuedWrite['kind'], string> = {
  start: 'Start visit',
  complete: 'Complete visit',
  note: 'Note',
  photo: 'Photo',
  'clock-in': 'Clock in',
  'clock-out': 'Clock out',
};

/** What My day's writes change, here and on the pages that show the same records. */
const refreshAfterWrites = (client: QueryClient) =>
  Promise.all(['my-day', 'events', 'time-entries', 'uploads', 'comments', 'jobs'].map((k) => client.invalidateQueries({ queryKey: [k] })));

// Mantine's light red title is below 4.5:1 on its tint (axe: color-contrast): red 9 is not.
const REFUSED_STYLES = { title: { color: 'var(--mantine-color-red-9)' } };

export default function MyDayPage() {
  // The session may end (a replay answered 401) a moment before RequireSession leaves the page.
  const me = useSession().data;
  return me ? <MyDay me={me} /> : null;
}

function MyDay({ me }: { me: Me }) {
  const client = useQueryClient();
  const owner = ownerOf(me);
  const today = nowIn(me.workspace.timezone).date;
  const queue = useWriteQueue();
  const day = useEagerQuery({
    queryKey: ['my-day', owner, today],
    queryFn: () => loadDay(owner, me.user.id, today),
    networkMode: 'always', // offline too: the saved day rather than a paused query
  });
  // Writes accepted (now or on a replay) change what the API answers: read it again, once per replay.
  useEffect(() => whenAccepted(() => refreshAfterWrites(client)), [client]);
  // What the page shows on top of the day: writes accepted and not read back yet, and those
  // waiting (not one made online on its first way: its effect shows when answered, as before).
  const pending = [...queue.settled, ...queue.writes].filter((w) => !queue.sending.includes(w.key));
  const waiting = queue.writes.filter((w) => !w.refused && !queue.sending.includes(w.key)).length;
  const offline = !queue.online || day.data?.saved_at != null;
  const settled = useSettled(day);

  return (
    <Page title="My day">
      <Group gap="xs" role="status" aria-label="Sync status">
        <Text c="dimmed">{formatDate(today)}</Text>
        {offline && (
          <Badge color="gray.8" variant="filled">
            Offline
          </Badge>
        )}
        {waiting > 0 && <Text fw={600}>{`Waiting to sync (${waiting})`}</Text>}
      </Group>
      {day.data?.saved_at && <Text size="sm">{`Saved on this phone ${formatDateTime(day.data.saved_at, me.workspace.timezone)}`}</Text>}
      {day.error && <Text c="red">{day.error.message}</Text>}
      {day.data?.visits.length === 0 && <Text>No visits for you today.</Text>}
      <Stack gap="md" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Today's visits">
        {settled && day.data?.visits.map((d) => (
          <li key={d.visit.id}>
            <VisitCard day={d} today={today} timezone={me.workspace.timezone} userId={me.user.id} {...withWaiting(d, day.data?.entries ?? [], pending)} writes={queue.writes.filter((w) => w.visitId === d.visit.id && !queue.sending.includes(w.key))} />
          </li>
        ))}
      </Stack>
    </Page>
  );
}

interface CardProps {
  day: DayVisit;
  today: string;
  timezone: string | null;
  userId: string;
  status: DayVisit['visit']['status'];
  clock: Clock | null;
  /** This visit's writes not yet accepted (refused ones too). */
  writes: QueuedWrite[];
}

function VisitCard({ day: { visit, job: j }, today, timezone, userId, status, clock, writes }: CardProps) {
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState('');
  const photo = useRef<HTMLInputElement>(null);
  const jobId = visit.job_id;
  // Notes and photos go to the job (a member's session may comment and upload on what
  // it can read, A1), to the visit only when it has no job.
  const parent = jobId !== null ? { module_type: 'job' as const, module_id: jobId } : { module_type: 'event' as const, module_id: visit.id };
  const photos = useQuery({
    queryKey: ['uploads', parent.module_type, parent.module_id],
    // The same key and shape as the job page's Files: what is added here shows there too.
    queryFn: () => unwrap(api.GET('/api/v1/uploads', { params: { query: { ...parent, per_page: 100 } } })),
  });
  const base = { visitId: visit.id, jobId };
  // One way for every button: the write is stored, then sent if the network allows (A12).
  const write = (what: Omit<QueuedWrite, 'owner' | 'made_at' | 'visitId' | 'jobId' | 'key'>, success: string, idempotencyKey: string) =>
    submitWrite({ ...base, ...what, key: idempotencyKey }).then((accepted) => {
      if (accepted && success) notifications.show({ color: 'green', message: success });
    });
  const statusAction = useApiAction({
    offline: true,
    run: (next: 'in_progress' | 'completed', { idempotencyKey }) =>
      write({ kind: next === 'completed' ? 'complete' : 'start', method: 'PUT', path: `/api/v1/events/${visit.id}/status`, body: { status: next } }, '', idempotencyKey),
  });
  const comment = useApiAction({
    offline: true,
    run: async (text: string, { idempotencyKey }) => {
      const done = write({ kind: 'note', method: 'POST', path: '/api/v1/comments', body: { ...parent, comment: text } }, 'Note added', idempotencyKey);
      setNote('');
      setNoting(false);
      await done;
    },
  });
  const upload = useApiAction({
    offline: true,
    run: (file: File, { idempotencyKey }) =>
      write(
        { kind: 'photo', method: 'POST', path: '/api/v1/uploads', upload: { fields: { module_type: parent.module_type, module_id: String(parent.module_id) }, file, name: file.name } },
        '',
        idempotencyKey,
      ),
  });
  const clockIn = useApiAction({
    offline: true,
    run: (_: void, { idempotencyKey }) => {
      const now = nowIn(timezone); // the time of the tap, whenever it is sent
      return write(
        {
          kind: 'clock-in',
          method: 'POST',
          path: '/api/v1/time-entries',
          body: { start_date: now.date, end_date: now.date, start_time: now.time, user_id: userId, job_id: jobId, description: visit.name },
        },
        '',
        idempotencyKey,
      );
    },
  });
  const clockOut = useApiAction({
    offline: true,
    run: (running: Clock, { idempotencyKey }) => {
      const now = nowIn(timezone);
      const body = { end_date: now.date, end_time: now.time };
      // A clock in still waiting: the clock out ends the entry it will make.
      const target = running.entryId !== null ? { path: `/api/v1/time-entries/${running.entryId}` } : { path: '/api/v1/time-entries/{entry}', after: running.clockInKey ?? '' };
      return write({ kind: 'clock-out', method: 'PUT', ...target, body }, '', idempotencyKey);
    },
  });

  const address = j?.property?.address;
  const addressText = address ? [address.street, address.street_2, address.city, address.state, address.postal_code].filter(Boolean).join(', ') : '';
  const title = visit.name ?? j?.name ?? 'Visit';
  const waiting = writes.filter((w) => !w.refused);
  return (
    <Card withBorder padding="sm" component="article" aria-label={title}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={2} size="h4">
            {title}
          </Title>
          <StatusBadge status={status} />
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
        {j?.contact?.phone && <Anchor href={`tel:${j.contact.phone.replace(/[^\d+]/g, '')}`}>{j.contact.phone}</Anchor>}
        {j?.property?.access_notes && (
          <div>
            <Text fw={600} size="sm">
              Access notes
            </Text>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{j.property.access_notes}</Text>
          </div>
        )}
        {visit.description && (
          <div>
            <Text fw={600} size="sm">
              Instructions
            </Text>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{visit.description}</Text>
          </div>
        )}
        {j && j.line_items.length > 0 && (
          <ul style={{ margin: 0, paddingLeft: '1.2rem' }} aria-label="Line items">
            {j.line_items.map((li) => (
              <li key={li.id}>
                {li.quantity} × {li.name}
              </li>
            ))}
          </ul>
        )}
        {writes
          .filter((w) => w.refused)
          .map((w) => (
            <Alert key={w.seq} color="red" role="alert" title={`Not synced: ${LABELS[w.kind]}`} styles={REFUSED_STYLES}>
              <Stack gap={6} align="flex-start">
                <Text size="sm">{w.refused}</Text>
                <Button size="xs" variant="default" onClick={() => dismissWrite(w.seq ?? -1)}>
                  Dismiss
                </Button>
              </Stack>
            </Alert>
          ))}
        <Group gap="xs">
          {status !== 'in_progress' && status !== 'completed' && (
            <Button onClick={() => statusAction.run('in_progress')} loading={statusAction.pending}>
              Start visit
            </Button>
          )}
          {status !== 'completed' && (
            <Button onClick={() => statusAction.run('completed')} loading={statusAction.pending} variant={status === 'in_progress' ? 'filled' : 'default'}>
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
        {clock && (
          <Text size="sm">
            Clocked in since {at(clock.start_time)}
            {clock.start_date !== today ? ` (${formatDate(clock.start_date)})` : ''}
          </Text>
        )}
        {waiting.length > 0 && <Text size="sm">{`Waiting to sync: ${waiting.map((w) => LABELS[w.kind]).join(', ')}`}</Text>}
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
              <GrowingTextarea label="Note" value={note} onChange={(e) => setNote(e.currentTarget.value)} minRows={2} />
              <Group justify="flex-end">
                <Button type="submit" loading={comment.pending}>
                  Save note
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {((photos.data?.data.length ?? 0) > 0 || waiting.some((w) => w.upload)) && (
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
            {waiting.map((w) => w.upload && <WaitingPhoto key={w.key} file={w.upload.file} name={w.upload.name} />)}
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** A photo taken offline, shown from the phone until it is sent. */
function WaitingPhoto({ file, name }: { file: Blob; name: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const u = URL.createObjectURL(file);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [file]);
  // Not the file's name: the name is the sent photo's (the page swaps one for the other once it is sent).
  return url ? <Image src={url} alt="Photo waiting to sync" title={name} w={72} h={72} fit="cover" radius="sm" /> : null;
}
