// The header's "Notifications" (A13): the person's internal notifications (a quote
// answered, a request received, a mention, ...) from GET /api/v1/me/notifications,
// the unread count in the button's name, each linking to its record; opening one
// marks it read, "Mark all read" marks the rest.
import type { PageOf } from '@fieldwork/client';
import { Anchor, Badge, Button, Group, Popover, Stack, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type RefObject, useState } from 'react';
import { Link } from 'react-router';
import { OnFirstUse } from '../components/on-first-use.tsx';
import { api, unwrap } from '../lib/api.ts';
import { formatAgo } from '../lib/format.ts';

type Item = PageOf<'/api/v1/me/notifications'>['data'][number];
const KEY = ['me', 'notifications'] as const;

const docName = (kind: string, d: Record<string, unknown>) => [`${kind}${typeof d.number === 'number' ? ` #${d.number}` : ''}`, typeof d.name === 'string' ? d.name : null].filter(Boolean).join(' ');
const RESPONSE: Record<string, string> = { approved: 'approved', declined: 'declined', changes_requested: 'has changes requested' };
const KIND: Record<string, string> = { quote: 'a quote', job: 'a job', invoice: 'an invoice', request: 'a request' };

/** What happened, in words. */
export function notificationText(n: Item): string {
  const d = (n.data ?? {}) as Record<string, unknown>;
  const about = KIND[n.module_type ?? ''] ?? 'a record';
  switch (n.name) {
    case 'requests_new':
      return `New request${typeof d.number === 'number' ? ` #${d.number}` : ''} from ${[d.first_name, d.last_name].filter(Boolean).join(' ') || 'a client'}`;
    case 'quote_customer_response':
      return `${docName('Quote', d)} ${RESPONSE[String(d.response)] ?? 'answered'} by the client`;
    case 'quotes_awaiting_response':
      return `${docName('Quote', d)} is awaiting the client's response`;
    case 'invoices_sent':
      return `${docName('Invoice', d)} was sent`;
    case 'comments_mention':
      return `You were mentioned on ${about}: "${String(d.excerpt ?? '')}"`;
    case 'comments_reply':
      return `A reply to your note on ${about}: "${String(d.excerpt ?? '')}"`;
    case 'comments_new':
      return `A new note on ${about} of yours: "${String(d.excerpt ?? '')}"`;
    case 'appointments_soon':
      return `Coming up: ${String(d.name ?? 'a visit')} on ${String(d.start_date ?? '')}${d.start_time ? ` at ${String(d.start_time)}` : ''}`;
    case 'email_allowance_used_up':
      return "This month's email allowance is used up: customer emails are not being sent";
    default:
      return n.name.replaceAll('_', ' ');
  }
}

const PATHS: Record<string, string> = { quote: 'quotes', job: 'jobs', invoice: 'invoices', request: 'requests', contact: 'clients' };
/** The record's page, or null when it has none. */
export function notificationPath(n: Item): string | null {
  if (n.module_type === 'event') return '/schedule';
  const base = PATHS[n.module_type ?? ''];
  return base && n.module_id ? `/${base}/${n.module_id}` : null;
}

export function NotificationsButton() {
  const [opened, setOpened] = useState(false);
  const client = useQueryClient();
  const inbox = useQuery({
    queryKey: KEY,
    queryFn: () => unwrap(api.GET('/api/v1/me/notifications', { params: { query: { per_page: 20 } } })),
    // New ones arrive while the app is open: ask again every minute.
    refetchInterval: 60_000,
  });
  const markRead = useMutation({
    mutationFn: (ids: number[] | undefined) => unwrap(api.POST('/api/v1/me/notifications/read', { body: ids ? { ids } : {} })),
    onSettled: () => client.invalidateQueries({ queryKey: KEY }),
  });
  const unread = inbox.data?.meta.unread_count ?? 0;
  const items = inbox.data?.data ?? [];
  // Following a notification's link reads it.
  const readOnOpen = (n: Item) => {
    if (!n.read_at) markRead.mutate([n.id]);
    setOpened(false);
  };
  const button = (onClick: () => void, ref?: RefObject<HTMLButtonElement | null>) => (
    <Button ref={ref} variant="subtle" px="xs" c="blue.9" onClick={onClick} aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'} aria-haspopup="dialog" aria-expanded={opened}>
      <Group gap={6} wrap="nowrap">
        <BellIcon />
        {unread > 0 && (
          <Badge size="sm" circle={unread < 10} color="red.9" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </Badge>
        )}
      </Group>
    </Button>
  );
  return (
    <OnFirstUse<HTMLButtonElement>
      idle={(use) => button(use)}
      active={(target) => (
        <Popover opened={opened} onChange={setOpened} position="bottom-end" width={340} withinPortal trapFocus returnFocus shadow="md">
          <Popover.Target>{button(() => setOpened((o) => !o), target)}</Popover.Target>
          <Popover.Dropdown aria-label="Notifications" role="dialog" p="xs">
            <Group justify="space-between" mb="xs" wrap="nowrap">
              <Text component="h2" fw={600} size="sm">
                Notifications
              </Text>
              {unread > 0 && (
                <Button size="compact-xs" variant="subtle" c="blue.9" onClick={() => markRead.mutate(undefined)} loading={markRead.isPending}>
                  Mark all read
                </Button>
              )}
            </Group>
            {items.length === 0 ? (
              <Text size="sm" c="dimmed">
                No notifications yet.
              </Text>
            ) : (
              <Stack gap={4} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0, maxHeight: 360, overflowY: 'auto' }}>
                {items.map((n) => {
                  const to = notificationPath(n);
                  const body = (
                    <>
                      <Text size="sm" fw={n.read_at ? 400 : 600} style={{ overflowWrap: 'anywhere' }}>
                        {!n.read_at && <VisuallyHidden>Unread: </VisuallyHidden>}
                        {notificationText(n)}
                      </Text>
                      <Text size="xs" c="dimmed">
                        <time dateTime={n.created_at}>{formatAgo(n.created_at)}</time>
                      </Text>
                    </>
                  );
                  const style = { display: 'block', borderRadius: 4, padding: 6, background: n.read_at ? undefined : 'var(--mantine-color-blue-0)' };
                  return (
                    <li key={n.id}>
                      {to ? (
                        <Anchor component={Link} to={to} onClick={() => readOnOpen(n)} underline="never" c="inherit" style={style}>
                          {body}
                        </Anchor>
                      ) : (
                        <div style={style}>{body}</div>
                      )}
                    </li>
                  );
                })}
              </Stack>
            )}
            {inbox.error && (
              <Anchor component="button" size="sm" onClick={() => inbox.refetch()}>
                Could not load notifications. Try again
              </Anchor>
            )}
          </Popover.Dropdown>
        </Popover>
      )}
    />
  );
}

function BellIcon() {
  return (
    <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}
