// "Tax rates" (A5): the workspace's tax rate presets (a percentage each) that
// quotes and invoices pick from: add, edit, delete (the shared settings table, A126).
import { NumberInput, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQueryClient } from '@tanstack/react-query';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { FormButtons, type RowFormProps, SettingsTable } from './shared/settings-table.tsx';

type TaxRate = components['schemas']['TaxRate'];
const RATES = ['tax-rates'] as const;

export default function TaxRatesPage() {
  return (
    <SettingsTable<TaxRate>
      title="Tax rates"
      newLabel="New tax rate"
      editLabel="Edit tax rate"
      empty="No tax rates yet."
      queryKey={RATES}
      list={async () => (await unwrap(api.GET('/api/v1/tax-rates', { params: { query: { per_page: 100, sort_by: 'name' } } }))).data}
      remove={(id, idempotencyKey) => unwrap(api.DELETE('/api/v1/tax-rates/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } }))}
      columns={[
        {
          header: 'Name',
          cell: (r) => (
            <>
              {r.name}
              {r.description && (
                <Text size="xs" c="dimmed">
                  {r.description}
                </Text>
              )}
            </>
          ),
        },
        { header: 'Rate', cell: (r) => `${r.rate}%` },
      ]}
      Form={RateForm}
    />
  );
}

function RateForm({ row, onDone }: RowFormProps<TaxRate>) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { name: row?.name ?? '', rate: (row?.rate ?? '') as number | string, description: row?.description ?? '' },
    // NumberInput leaves '' when empty: asked for here, the server checks the rest.
    validate: { rate: (v) => (typeof v === 'number' ? null : 'Enter a rate') },
    submit: ({ name, rate, description }, { idempotencyKey }) => {
      const headers = { 'idempotency-key': idempotencyKey };
      return row
        ? unwrap(api.PUT('/api/v1/tax-rates/{id}', { params: { path: { id: row.id } }, body: { name, rate: Number(rate), description: description.trim() || null }, headers }))
        : unwrap(api.POST('/api/v1/tax-rates', { body: { name, rate: Number(rate), ...(description.trim() ? { description } : {}) }, headers }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: RATES });
      onDone();
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label={row ? 'Edit tax rate' : 'New tax rate'}>
      <Stack gap="sm">
        <FormError error={error} />
        <TextInput label="Name" {...form.getInputProps('name')} />
        <NumberInput label="Rate (%)" decimalScale={4} min={0} {...form.getInputProps('rate')} />
        <TextInput label="Description" {...form.getInputProps('description')} />
        <FormButtons save="Save tax rate" pending={pending} onCancel={onDone} />
      </Stack>
    </form>
  );
}
