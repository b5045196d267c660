// Reports (A10): revenue, receivables, job costing, time and quotes for a period,
// each the API's rows in a table (the figures are the API's, formatted), a chart
// where one helps (revenue by month, receivables by age) and the same rows as CSV.
// Owners, admins and managers only: the API refuses a member's session (reports:read).
import { Button, Card, Group, NativeSelect, Skeleton, Table, Tabs, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { addDays, money, todayIn } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';

const ReportChart = lazy(() => import('./reports-chart.tsx'));

const TABS = [
  { value: 'revenue', label: 'Revenue' },
  { value: 'receivables', label: 'Receivables' },
  { value: 'job-costing', label: 'Job costing' },
  { value: 'time', label: 'Time' },
  { value: 'quotes', label: 'Quotes' },
] as const;
type Report = (typeof TABS)[number]['value'];
type Kind = 'text' | 'money' | 'hours' | 'percent' | 'count';
interface Column {
  key: string;
  label: string;
  kind: Kind;
}
const col = (key: string, label: string, kind: Kind = 'text'): Column => ({ key, label, kind });

const COLUMNS: Record<Report, Column[]> = {
  revenue: [col('label', 'Period'), col('invoiced', 'Invoiced', 'money'), col('collected', 'Collected', 'money')],
  receivables: [
    col('name', 'Client'),
    col('current', 'Current', 'money'),
    col('days_1_30', '1–30 days', 'money'),
    col('days_31_60', '31–60 days', 'money'),
    col('days_61_90', '61–90 days', 'money'),
    col('days_over_90', 'Over 90 days', 'money'),
    col('total', 'Total', 'money'),
  ],
  'job-costing': [
    col('number', 'Job', 'count'),
    col('name', 'Name'),
    col('revenue', 'Revenue', 'money'),
    col('labour_hours', 'Hours', 'hours'),
    col('labour_cost', 'Labour', 'money'),
    col('line_costs', 'Line costs', 'money'),
    col('expenses', 'Expenses', 'money'),
    col('profit', 'Profit', 'money'),
    col('margin', 'Margin', 'percent'),
  ],
  time: [
    col('name', 'Member'),
    col('week_start', 'Week of'),
    col('draft', 'Draft', 'hours'),
    col('pending', 'Pending', 'hours'),
    col('approved', 'Approved', 'hours'),
    col('rejected', 'Rejected', 'hours'),
    col('total', 'Total', 'hours'),
  ],
  quotes: [
    col('key', 'Month'),
    col('sent', 'Sent', 'count'),
    col('accepted', 'Accepted', 'count'),
    col('declined', 'Declined', 'count'),
    col('sent_amount', 'Sent amount', 'money'),
    col('accepted_amount', 'Accepted amount', 'money'),
    col('conversion', 'Conversion', 'percent'),
  ],
};
const GROUPS = [
  { value: 'month', label: 'Month' },
  { value: 'client', label: 'Client' },
  { value: 'service', label: 'Service' },
];

const monthEnd = (date: string) => {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return addDays(m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`, -1);
};
const isDate = (v: string | null): v is string => !!v && /^\d{4}-\d{2}-\d{2}$/.test(v);

// Members see no reports (A10): the API refuses their reads, and the shell says so in words.
export default function ReportsPage() {
  return <Reports />;
}

function Reports() {
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const today = todayIn(me.workspace.timezone);
  const tab = (TABS.find((t) => t.value === params.get('tab'))?.value ?? 'revenue') as Report;
  // The API's default period: the current month where the workspace is.
  const from = isDate(params.get('from')) ? params.get('from')! : `${today.slice(0, 7)}-01`;
  const to = isDate(params.get('to')) ? params.get('to')! : monthEnd(today);
  const group = (GROUPS.find((g) => g.value === params.get('group'))?.value ?? 'month') as 'month' | 'client' | 'service';
  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) next.set(k, v);
    setParams(next, { replace: true });
  };
  // A170: receivables are aged at "To", or today when "To" is still to come.
  const query: Query = tab === 'receivables' ? { as_of: to < today ? to : today } : { from, to, ...(tab === 'revenue' ? { group } : {}) };
  const csvHref = `/api/v1/reports/${tab}?${new URLSearchParams({ ...(query as Record<string, string>), format: 'csv' })}`;
  return (
    <Page title="Reports">
      <Group align="end" gap="sm" wrap="wrap">
        <TextInput type="date" label="From" value={from} onChange={(e) => isDate(e.currentTarget.value) && set({ from: e.currentTarget.value })} w={170} />
        <TextInput type="date" label="To" value={to} onChange={(e) => isDate(e.currentTarget.value) && set({ to: e.currentTarget.value })} w={170} />
        {tab === 'revenue' && <NativeSelect label="Group by" data={GROUPS} value={group} onChange={(e) => set({ group: e.currentTarget.value })} w={140} />}
        <Button component="a" href={csvHref} download variant="default">
          Download CSV
        </Button>
      </Group>
      <Tabs value={tab} onChange={(v) => v && set({ tab: v })} keepMounted={false}>
        <Tabs.List>
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map((t) => (
          <Tabs.Panel key={t.value} value={t.value} pt="md">
            <ReportView report={t.value} query={query} label={t.label} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Page>
  );
}

type Row = Record<string, string | number | null>;

/** The JSON answer's rows (the CSV variant of the answer is only ever a download link). */
const rowsOf = (answer: string | { data: Row[] }): Row[] => (typeof answer === 'string' ? [] : answer.data);

type Query = { from?: string; to?: string; as_of?: string; group?: 'month' | 'client' | 'service' };

async function fetchReport(report: Report, query: Query): Promise<Row[]> {
  const q = { params: { query } };
  switch (report) {
    case 'revenue':
      return rowsOf(await unwrap(api.GET('/api/v1/reports/revenue', q)));
    case 'receivables':
      return rowsOf(await unwrap(api.GET('/api/v1/reports/receivables', q)));
    case 'job-costing':
      return rowsOf(await unwrap(api.GET('/api/v1/reports/job-costing', q)));
    case 'time':
      return rowsOf(await unwrap(api.GET('/api/v1/reports/time', q)));
    case 'quotes':
      return rowsOf(await unwrap(api.GET('/api/v1/reports/quotes', q)));
  }
}

function ReportView({ report, query, label }: { report: Report; query: Query; label: string }) {
  const me = useMe();
  const rows = useQuery({ queryKey: ['reports', report, query], queryFn: () => fetchReport(report, query) });
  const columns = report === 'revenue' && query.group !== 'month' ? [{ ...COLUMNS.revenue[0]!, label: query.group === 'client' ? 'Client' : 'Service' }, ...COLUMNS.revenue.slice(1)] : COLUMNS[report];
  const format = (n: number) => money(n, me.workspace);
  const cell = (c: Column, v: string | number | null | undefined): ReactNode => {
    if (v === null || v === undefined) return '–';
    if (typeof v !== 'number') return v;
    if (c.kind === 'money') return format(v);
    if (c.kind === 'hours') return v.toFixed(2);
    if (c.kind === 'percent') return `${v.toFixed(1)}%`;
    return String(v);
  };
  if (rows.isPending) return <Skeleton h={200} />;
  if (rows.isError) return <Text c="red">{rows.error.message}</Text>;
  const data = rows.data;
  const chart = chartOf(report, query, data);
  return (
    <>
      {chart && (
        <Card withBorder mb="md" mih={272}>
          <Suspense fallback={<Skeleton h={240} />}>
            <ReportChart {...chart} format={format} />
          </Suspense>
        </Card>
      )}
      {data.length === 0 ? (
        <Text c="dimmed">Nothing in this period.</Text>
      ) : (
        // A wide report scrolls sideways inside its own region, which the keyboard can reach (axe: scrollable-region-focusable).
        <Table.ScrollContainer minWidth={0} type="native" tabIndex={0} role="region" aria-label={`${label} table`}>
          <Table striped highlightOnHover data-report={report}>
            <Table.Caption>{label}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                {columns.map((c) => (
                  <Table.Th key={c.key} scope="col" ta={c.kind === 'text' ? 'left' : 'right'}>
                    {c.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.map((row, i) => (
                <Table.Tr key={String(row.key ?? row.contact_id ?? row.job_id ?? `${row.user_id}-${row.week_start}`) + i}>
                  {columns.map((c, j) =>
                    j === 0 ? (
                      <Table.Th key={c.key} scope="row" fw={row.name === 'Total' && row.contact_id === null ? 700 : 500}>
                        {cell(c, row[c.key])}
                      </Table.Th>
                    ) : (
                      <Table.Td key={c.key} ta={c.kind === 'text' ? 'left' : 'right'}>
                        {cell(c, row[c.key])}
                      </Table.Td>
                    ),
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}

/** A171: revenue by month (invoiced beside collected) and receivables by age (the Total row) have a chart; the rest are tables. */
function chartOf(report: Report, query: Query, rows: Row[]) {
  if (report === 'revenue' && query.group === 'month' && rows.length > 0)
    return {
      data: rows.map((r) => ({ month: String(r.key), Invoiced: Number(r.invoiced), Collected: Number(r.collected) })),
      dataKey: 'month',
      series: [
        { name: 'Invoiced', color: 'blue.8' },
        { name: 'Collected', color: 'teal.8' },
      ],
    };
  const total = report === 'receivables' ? rows.find((r) => r.contact_id === null && r.name === 'Total') : undefined;
  if (total && Number(total.total) !== 0)
    return {
      data: COLUMNS.receivables.slice(1, 6).map((c) => ({ age: c.label, Balance: Number(total[c.key]) })),
      dataKey: 'age',
      series: [{ name: 'Balance', color: 'orange.8' }],
    };
  return null;
}
