// Home (A2): today's visits, the four counts with links, payments per month
// (the chart's code loads only here) and recent activity. One GET /api/v1/home
// plus the visits from GET /api/v1/events.
import type { components } from '@fieldwork/client';
import { Anchor, Card, Group, List, SegmentedControl, SimpleGrid, Skeleton, Stack, Text, Title, VisuallyHidden } from '@mantine/core';
import { useInViewport } from '@mantine/hooks';
import { keepPreviousData } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, Navigate } from 'react-router';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatAgo, formatClock, money, statusLabel, todayIn } from '../../lib/format.ts';
import { useEagerQuery, useSettled } from '../../lib/query.ts';
import { useMe } from '../../lib/session.ts';
import { type Activity, activityText, monthLabel, recordPath } from './activity.ts';

const PaymentsChart = lazy(() => import('./payments-chart.tsx'));

export default function HomePage() {
  const me = useMe();
  if (me.user.role === 'member') return <Navigate to="/my-day" replace />; // a member's home (A4)
  return <Home />;
}

function Home() {
  const me = useMe();
  const home = useEagerQuery({ queryKey: ['home'], queryFn: async () => (await unwrap(api.GET('/api/v1/home'))).data });
  const [whose, setWhose] = useState<Whose>('all');
  const visits = useTodaysVisits(whose);
  const d = home.data;
  const ws = me.workspace;
  // Drawn once both reads are in: "Get started" and the visits would otherwise push the
  // sections below them down as each arrives (a layout shift the person sees).
  const settled = useSettled(home, visits);
  if (!settled)
    return (
      <Page title="Home">
        <Skeleton h={320} />
      </Page>
    );
  return (
    <Page title="Home">
      {d?.get_started && <GetStarted steps={d.get_started} />}
      <TodaysVisits visits={visits.data?.data ?? []} whose={whose} onWhose={setWhose} />
      <section aria-labelledby="counts-title">
        <Title order={2} size="h4" id="counts-title" mb="xs">
          Needs attention
        </Title>
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="sm">
          <Count label="New requests" to="/requests?tab=new" value={d?.new_requests} />
          <Count label="Quotes awaiting response" to="/quotes?tab=awaiting_response" value={d?.quotes_awaiting_response} />
          <Count label="Jobs to invoice" to="/jobs?tab=to_invoice" value={d?.jobs_to_invoice} more={{ label: 'Invoice work', to: '/invoices/batch' }} />
          <Count
            label="Overdue invoices"
            to="/invoices?tab=overdue"
            value={d?.overdue_invoices?.count}
            // A153: how many as well as how much, in words beside the big number.
            extra={d?.overdue_invoices ? `${d.overdue_invoices.count} ${d.overdue_invoices.count === 1 ? 'invoice' : 'invoices'}, ${money(d.overdue_invoices.amount_due, ws)} due` : undefined}
          />
        </SimpleGrid>
      </section>
      <section aria-labelledby="activity-title">
        <Title order={2} size="h4" id="activity-title" mb="xs">
          Recent activity
        </Title>
        <ActivityList items={d?.activity ?? []} />
      </section>
      {d?.payments_by_month && (
        <section aria-labelledby="payments-title">
          <Title order={2} size="h4" id="payments-title" mb="xs">
            Payments received
          </Title>
          <Payments months={d.payments_by_month} format={(n) => money(n, ws)} />
        </section>
      )}
    </Page>
  );
}

type Steps = NonNullable<components['schemas']['Home']['get_started']>;
const STEPS: { key: keyof Steps; label: string; to: string }[] = [
  { key: 'company_details', label: 'Add your company details', to: '/settings/company' },
  { key: 'price_book', label: 'Add your services to the price book', to: '/settings/price-book' },
  { key: 'first_client', label: 'Add your first client', to: '/clients/new' },
  { key: 'team', label: 'Invite your team', to: '/settings/team' },
];

/** A new workspace's first steps (A13), each done from real data (GET /api/v1/home's get_started); gone once all are. */
function GetStarted({ steps }: { steps: Steps }) {
  const left = STEPS.filter((s) => !steps[s.key]).length;
  if (left === 0) return null;
  return (
    <Card withBorder component="section" aria-labelledby="get-started-title" padding="sm">
      <Title order={2} size="h4" id="get-started-title">
        Get started
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        {`${STEPS.length - left} of ${STEPS.length} done`}
      </Text>
      <List spacing={6} listStyleType="none" p={0}>
        {STEPS.map((s) => (
          <List.Item key={s.key}>
            {steps[s.key] ? (
              <Text size="sm" c="dimmed" td="line-through">
                <VisuallyHidden>Done: </VisuallyHidden>
                {s.label}
              </Text>
            ) : (
              <Anchor component={Link} to={s.to} size="sm" fw={500}>
                {s.label}
              </Anchor>
            )}
          </List.Item>
        ))}
      </List>
    </Card>
  );
}

/**
 * The chart's code loads once the card scrolls into view (it is most of Home's JavaScript);
 * the table is always there. With no payment in the 12 months (a new workspace), a sentence
 * says so instead of an empty chart on a made-up scale.
 */
function Payments({ months, format }: { months: { month: string; amount: number; count: number }[]; format: (n: number) => string }) {
  const { ref, inViewport } = useInViewport();
  const [seen, setSeen] = useState(false);
  if (inViewport && !seen) setSeen(true);
  if (months.every((m) => m.amount === 0 && m.count === 0))
    return (
      <Card withBorder padding="sm">
        <Text c="dimmed">No payments received in the last 12 months.</Text>
      </Card>
    );
  return (
    <Card withBorder ref={ref} mih={272}>
      {seen && (
        <Suspense fallback={<Skeleton h={240} />}>
          <PaymentsChart months={months} format={format} />
        </Suspense>
      )}
      <VisuallyHidden>
        <table>
          <caption>Payments received per month, last 12 months</caption>
          <tbody>
            {months.map((m) => (
              <tr key={m.month}>
                <th scope="row">{monthLabel(m.month)}</th>
                <td>{format(m.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </VisuallyHidden>
    </Card>
  );
}

function Count({ label, to, value, extra, more }: { label: string; to: string; value: number | null | undefined; extra?: string; more?: { label: string; to: string } }) {
  if (value === null) return null; // a section this session may not read
  return (
    <Card withBorder padding="sm">
      <Text size="xl" fw={700} data-count={label}>
        {value ?? '–'}
      </Text>
      <Anchor component={Link} to={to} fw={500}>
        {label}
      </Anchor>
      {extra && (
        <Text size="sm" c="dimmed" data-amount-due>
          {extra}
        </Text>
      )}
      {/* A8: the jobs to invoice are billed from "Invoice work". */}
      {more && (
        // mt: apart from the link above by more than a 24 px target's reach (WCAG 2.5.8).
        <Anchor component={Link} to={more.to} size="sm" mt={6}>
          {more.label}
        </Anchor>
      )}
    </Card>
  );
}

type Whose = 'all' | 'mine';
type Visit = components['schemas']['EventListItem'];

/** Today's visits, everyone's or mine; switching keeps the last list until the other arrives. */
function useTodaysVisits(whose: Whose) {
  const me = useMe();
  const today = todayIn(me.workspace.timezone);
  return useEagerQuery({
    queryKey: ['events', 'today', today, whose],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/events', {
          params: { query: { ends_on_or_after: today, starts_on_or_before: today, sort_by: 'start_date', sort_direction: 'asc', per_page: 50, ...(whose === 'mine' ? { assignee_ids: me.user.id } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

function TodaysVisits({ visits, whose, onWhose }: { visits: Visit[]; whose: Whose; onWhose: (whose: Whose) => void }) {
  const me = useMe();
  const rows = [...visits].sort((a, b) => (a.start_time ?? '').localeCompare(b.start_time ?? ''));
  return (
    <section aria-labelledby="visits-title">
      <Group justify="space-between" mb="xs" wrap="wrap">
        <Title order={2} size="h4" id="visits-title">
          Today's visits
        </Title>
        <SegmentedControl
          size="xs"
          value={whose}
          onChange={(v) => onWhose(v === 'mine' ? 'mine' : 'all')}
          data={[
            { value: 'all', label: 'All visits' },
            { value: 'mine', label: 'My visits' },
          ]}
          aria-label="Whose visits"
        />
      </Group>
      <Card withBorder padding="sm">
        {rows.length === 0 ? (
          <Text c="dimmed">No visits today.</Text>
        ) : (
          <Stack gap="xs">
            {rows.map((v) => (
              <Group key={v.id} gap="sm" wrap="nowrap" align="flex-start">
                <Text fw={600} w={80} style={{ flexShrink: 0 }}>
                  {v.all_day || !v.start_time ? 'All day' : formatClock(v.start_time)}
                </Text>
                <div style={{ minWidth: 0 }}>
                  <Text style={{ overflowWrap: 'anywhere' }}>
                    {v.job_id ? (
                      <Anchor component={Link} to={`/jobs/${v.job_id}`}>
                        {v.name || 'Job visit'}
                      </Anchor>
                    ) : (
                      v.name || 'Visit'
                    )}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {[statusLabel(v.status), v.assignee_ids.includes(me.user.id) ? 'assigned to you' : v.assignee_ids.length ? `${v.assignee_ids.length} assigned` : 'not assigned']
                      .filter(Boolean)
                      .join(' · ')}
                  </Text>
                </div>
              </Group>
            ))}
          </Stack>
        )}
      </Card>
    </section>
  );
}

function ActivityList({ items }: { items: Activity[] }) {
  if (!items.length) return <Text c="dimmed">Nothing yet.</Text>;
  return (
    <List spacing={6} listStyleType="none" p={0}>
      {items.map((a, i) => (
        <List.Item key={`${a.at}-${i}`}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            <Anchor component={Link} to={recordPath(a)}>
              {activityText(a)}
            </Anchor>
            {a.user && ` · ${[a.user.first_name, a.user.last_name].filter(Boolean).join(' ')}`}
            <Text span c="dimmed" size="sm">
              {' · '}
              <time dateTime={a.at}>{formatAgo(a.at)}</time>
            </Text>
          </Text>
        </List.Item>
      ))}
    </List>
  );
}
