// Timesheets (A4): my week (entries, totals, "Submit"); owners, admins and
// managers also see every member's week and "Approve" or "Reject" it. Weeks
// are the workspace's (D9), their statuses SPEC's.
import type { components } from '@fieldwork/client';
import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { StatusBadge } from '../../components/status-badge.tsx';
import { addDays, formatDate, formatClock, nowIn, statusLabel, weekOf } from '../../lib/format.ts';
import { allPages } from '../../lib/pages.ts';
import { isOffice, useMe } from '../../lib/session.ts';
import { useWeekStart } from '../../lib/workspace.ts';
import { useApiAction } from '../../components/api-action.tsx';

type Sheet = components['schemas']['TimesheetListItem'];
type Status = 'pending' | 'approved' | 'rejected';

const hours = (n: number) => `${n.toFixed(2)} h`;
const at = formatClock;
// Dark enough for white text (WCAG AA).
export default function TimesheetsPage() {
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const given = params.get('week');
  // The workspace's week (D9 week_start) in its timezone; nothing is asked for until it is known.
  const weekStart = useWeekStart();
  const week = weekOf(given && /^\d{4}-\d\d-\d\d$/.test(given) ? given : nowIn(me.workspace.timezone).date, weekStart ?? 'monday');
  const office = isOffice(me.user.role);
  const client = useQueryClient();

  const sheets = useQuery({
    queryKey: ['timesheets', week.start_date, office ? 'all' : me.user.id],
    enabled: weekStart !== undefined,
    queryFn: () => allPages('/api/v1/timesheets', { query: { start_date: week.start_date, end_date: week.end_date, per_page: 100, ...(office ? {} : { user_id: me.user.id }) } }),
  });
  const entries = useQuery({
    queryKey: ['time-entries', 'week', week.start_date, me.user.id],
    enabled: weekStart !== undefined,
    queryFn: () => allPages('/api/v1/time-entries', { query: { user_id: me.user.id, start_date: week.start_date, end_date: week.end_date, per_page: 100, sort_by: 'start_date', sort_direction: 'asc' } }),
  });
  const team = useQuery({
    queryKey: ['users', 'all'],
    enabled: office,
    queryFn: () => allPages('/api/v1/users', { query: { per_page: 100, sort_by: 'first_name', sort_direction: 'asc' } }),
  });
  const setStatus = useApiAction({
    run: ({ id, status }: { id: number; status: Status }, { idempotencyKey }) =>
      unwrap(api.PUT('/api/v1/timesheets/{id}/status', { params: { path: { id } }, body: { status }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['timesheets'] }),
    onError: (err) => notifications.show({ color: 'red', title: 'The timesheet was not changed', message: err.message }),
  });

  const mine = sheets.data?.find((s) => s.user_id === me.user.id);
  const others = (sheets.data ?? []).filter((s) => s.user_id !== me.user.id);
  const nameOf = (s: Sheet) => {
    const u = team.data?.find((m) => m.user_id === s.user_id);
    return u ? [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email : s.user_id;
  };
  const go = (date: string) => setParams({ week: date });

  return (
    <Page title="Timesheets">
      <Group gap="xs">
        <Button variant="default" onClick={() => go(addDays(week.start_date, -7))}>
          Previous week
        </Button>
        <Button variant="default" onClick={() => setParams({})}>
          This week
        </Button>
        <Button variant="default" onClick={() => go(addDays(week.start_date, 7))}>
          Next week
        </Button>
      </Group>
      {weekStart && (
        <Text fw={600} data-testid="week-range">
          {formatDate(week.start_date)} – {formatDate(week.end_date)}
        </Text>
      )}
      <Stack gap="xs" component="section" aria-labelledby="my-week">
        <Group justify="space-between">
          <Title order={2} size="h3" id="my-week">
            My week
          </Title>
          {mine && <StatusBadge status={mine.status} />}
        </Group>
        {entries.data?.length === 0 && <Text>No time entries this week.</Text>}
        {(entries.data?.length ?? 0) > 0 && (
          <Table.ScrollContainer minWidth={0}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Date</Table.Th>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Hours</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entries.data?.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>{formatDate(e.start_date)}</Table.Td>
                    <Table.Td>
                      {at(e.start_time)}
                      {e.end_time ? ` – ${at(e.end_time)}` : e.start_time ? ' (running)' : ''}
                    </Table.Td>
                    <Table.Td>{hours(e.total_time)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        <Group justify="space-between">
          <Text fw={700}>Total: {hours(mine?.total_time ?? 0)}</Text>
          {mine && (mine.status === 'draft' || mine.status === 'rejected') && (
            <Button onClick={() => setStatus.run({ id: mine.id, status: 'pending' })} loading={setStatus.pending}>
              Submit
            </Button>
          )}
        </Group>
      </Stack>
      {office && (
        <Stack gap="xs" component="section" aria-labelledby="team-weeks">
          <Title order={2} size="h3" id="team-weeks">
            Team
          </Title>
          {others.length === 0 && <Text>No other timesheets this week.</Text>}
          {others.length > 0 && (
            <Table>
              <Table.Caption>Everyone's timesheets this week</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Member</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Hours</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {others.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>{nameOf(s)}</Table.Td>
                    <Table.Td>{statusLabel(s.status)}</Table.Td>
                    <Table.Td>{hours(s.total_time)}</Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        {s.status !== 'approved' && (
                          <Button size="xs" onClick={() => setStatus.run({ id: s.id, status: 'approved' })}>
                            Approve
                          </Button>
                        )}
                        {s.status !== 'rejected' && (
                          <Button size="xs" color="red.9" variant="outline" onClick={() => setStatus.run({ id: s.id, status: 'rejected' })}>
                            Reject
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Page>
  );
}
