// "Invoice work" (A8, E22): the work done and not billed yet through a date, one row
// per job (client, job, visits, amount) with a checkbox each and "Select all";
// "Create invoices" makes one invoice per chosen job (sent to clients with an
// email when "Send to clients" is ticked) and lists what it made.
import { Alert, Anchor, Button, Checkbox, Group, List, Loader, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { useApiAction } from '../../components/api-action.tsx';
import { Page } from '../../components/page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatDate, money, todayIn } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';

const workPage = (through: string, page: number) => unwrap(api.GET('/api/v1/billable-work', { params: { query: { through, page, per_page: 100 } } }));
type Work = Awaited<ReturnType<typeof workPage>>['data'][number];

/** Every page of the billable work through `through` (100 rows a page). */
async function allWork(through: string): Promise<Work[]> {
  const rows: Work[] = [];
  for (let page = 1; ; page++) {
    const res = await workPage(through, page);
    rows.push(...res.data);
    if (page >= res.pagination.total_pages) return rows;
  }
}

const visitsText = (w: Work) => (w.visits.length ? w.visits.map((v) => formatDate(v.date)).join(', ') : 'Job completed');
const clientName = (w: Work) => (w.contact ? fullName(w.contact) : 'No client');

export function BatchPage() {
  const ws = useMe().workspace;
  const client = useQueryClient();
  const [through, setThrough] = useState(() => todayIn(ws.timezone));
  const [picked, setPicked] = useState<ReadonlySet<number>>(new Set());
  const [send, setSend] = useState(false);
  const work = useQuery({ queryKey: ['invoices', 'billable-work', through], queryFn: () => allWork(through), enabled: /^\d{4}-\d{2}-\d{2}$/.test(through) });
  const rows = work.data ?? [];
  const chosen = rows.filter((w) => picked.has(w.job_id));
  const create = useApiAction({
    run: (_: void, { idempotencyKey }) =>
      unwrap(api.POST('/api/v1/invoices/batch', { body: { through, job_ids: chosen.map((w) => w.job_id), send }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => {
      setPicked(new Set());
      void client.invalidateQueries({ queryKey: ['invoices'] });
      void client.invalidateQueries({ queryKey: ['jobs'] });
      void client.invalidateQueries({ queryKey: ['home'] });
    },
  });
  const toggle = (id: number, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const allPicked = rows.length > 0 && chosen.length === rows.length;
  const made = create.data;
  const notSent = new Set(made?.meta.not_sent ?? []);
  const total = chosen.reduce((sum, w) => sum + Math.round(w.amount * 100), 0) / 100;

  return (
    <Page title="Invoice work">
      {create.error && (
        <Alert color="red" role="alert">
          {create.error.message}
        </Alert>
      )}
      {made && (
        <Paper withBorder p="md" role="status" aria-label="Invoices created">
          <Text fw={600}>
            {made.meta.created === 0 ? 'Nothing was left to invoice.' : `${made.meta.created} ${made.meta.created === 1 ? 'invoice' : 'invoices'} created, ${made.meta.sent} sent.`}
          </Text>
          <List size="sm" mt="xs">
            {made.data.map((inv) => (
              <List.Item key={inv.id}>
                <Anchor component={Link} to={`/invoices/${inv.id}`}>{`Invoice #${inv.number}`}</Anchor>
                {` ${inv.contact ? fullName(inv.contact) : ''} ${money(inv.total, ws)}${notSent.has(inv.id) ? ' (not sent: no email)' : ''}`}
              </List.Item>
            ))}
          </List>
        </Paper>
      )}
      <Group align="end" wrap="wrap">
        <TextInput label="Through" type="date" value={through} onChange={(e) => setThrough(e.currentTarget.value)} />
        <Checkbox label="Send to clients" checked={send} onChange={(e) => setSend(e.currentTarget.checked)} />
        <Button onClick={() => create.run()} loading={create.pending} disabled={chosen.length === 0}>
          Create invoices
        </Button>
      </Group>
      {work.isLoading ? (
        <Loader aria-label="Loading" />
      ) : rows.length === 0 ? (
        <Text c="dimmed">No work to invoice through {formatDate(through)}.</Text>
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table striped>
            <caption>{`Work to invoice: ${chosen.length} of ${rows.length} selected, ${money(total, ws)}`}</caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>
                  <Checkbox
                    aria-label="Select all"
                    checked={allPicked}
                    indeterminate={chosen.length > 0 && !allPicked}
                    onChange={(e) => setPicked(e.currentTarget.checked ? new Set(rows.map((w) => w.job_id)) : new Set())}
                  />
                </Table.Th>
                <Table.Th>Client</Table.Th>
                <Table.Th>Job</Table.Th>
                <Table.Th>Visits</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((w) => (
                <Table.Tr key={w.job_id}>
                  <Table.Td>
                    <Checkbox aria-label={`Select ${w.name ?? `job ${w.job_id}`} for ${clientName(w)}`} checked={picked.has(w.job_id)} onChange={(e) => toggle(w.job_id, e.currentTarget.checked)} />
                  </Table.Td>
                  <Table.Td>{clientName(w)}</Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/jobs/${w.job_id}`}>
                      {w.name ?? `Job ${w.job_id}`}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm">{w.visits.length ? `${w.visits.length} ${w.visits.length === 1 ? 'visit' : 'visits'}` : ''}</Text>
                      <Text size="xs" c="dimmed">
                        {visitsText(w)}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td ta="right">{money(w.amount, ws)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Page>
  );
}
