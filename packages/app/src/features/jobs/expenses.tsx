// A10: a job's expenses (E26: name, amount above 0 and date; they count as the job's
// costs in Reports -> Job costing). Added by writing the job's `expenses` back with
// the new one at the end; a member's job comes without them (A14), so no section.
import type { components } from '@fieldwork/client';
import { Button, Group, NumberInput, SimpleGrid, Table, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { DocumentSection } from '../../components/documents.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatDate, money, type WorkspaceLike } from '../../lib/format.ts';

type Expense = NonNullable<components['schemas']['Job']['expenses']>[number];

/** An expense sent back as read (its id kept); one stored without a date (before dates were required) is refused by name. */
const asInput = (e: Expense) => ({ id: e.id, name: e.name, amount: e.amount, date: e.date ?? '', description: e.description, category: e.category, receipt_upload_id: e.receipt_upload_id });

export function Expenses({ jobId, expenses, writes, today, workspace }: { jobId: number; expenses: Expense[]; writes: boolean; today: string; workspace: WorkspaceLike }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { name: '', amount: '' as number | string, date: today },
    submit: (v, { idempotencyKey }) =>
      unwrap(
        api.PUT('/api/v1/jobs/{id}', {
          params: { path: { id: jobId } },
          body: { expenses: [...expenses.map(asInput), { name: v.name.trim(), amount: Number(v.amount), date: v.date }] },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    // The API names the new expense's field (`expenses.<n>.amount`): shown on that field here.
    errorPath: (field) => field.replace(/^expenses\.\d+\./, ''),
    onSuccess: () => {
      setOpen(false);
      form.reset();
      void client.invalidateQueries({ queryKey: ['jobs', jobId] });
    },
  });
  const total = expenses.reduce((s, e) => s + Math.round(e.amount * 100), 0) / 100;
  return (
    <DocumentSection title="Expenses">
      {expenses.length === 0 ? (
        <Text size="sm" c="dimmed">
          No expenses.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={0}>
          <Table aria-label="Expenses">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Date</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {expenses.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{e.name}</Table.Td>
                  <Table.Td>{e.date ? formatDate(e.date) : ''}</Table.Td>
                  <Table.Td ta="right">{money(e.amount, workspace)}</Table.Td>
                </Table.Tr>
              ))}
              <Table.Tr>
                <Table.Th colSpan={2}>Total</Table.Th>
                <Table.Td ta="right" fw={600}>
                  {money(total, workspace)}
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {writes &&
        (open ? (
          <form onSubmit={onSubmit} noValidate>
            <FormError error={error} />
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs" maw={640}>
              <TextInput label="Name" required {...form.getInputProps('name')} />
              <NumberInput label="Amount" required min={0} decimalScale={2} {...form.getInputProps('amount')} />
              <TextInput label="Date" type="date" required {...form.getInputProps('date')} />
            </SimpleGrid>
            <Group mt="xs">
              <Button type="submit" loading={pending}>
                Save expense
              </Button>
              <Button variant="subtle" onClick={() => setOpen(false)}>
                Cancel
              </Button>
            </Group>
          </form>
        ) : (
          <Button variant="default" onClick={() => setOpen(true)} style={{ alignSelf: 'flex-start' }}>
            Add expense
          </Button>
        ))}
    </DocumentSection>
  );
}
