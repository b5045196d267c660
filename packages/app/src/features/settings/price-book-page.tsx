// "Price book" (A5): the services and products quotes and invoices pick from,
// with their unit price: add, edit, delete (the shared settings table, A126).
import { Checkbox, NativeSelect, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQueryClient } from '@tanstack/react-query';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { money } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { FormButtons, type RowFormProps, SettingsTable } from './shared/settings-table.tsx';

type Service = components['schemas']['Service'];
const SERVICES = ['services'] as const;

export default function PriceBookPage() {
  const me = useMe();
  return (
    <SettingsTable<Service>
      title="Price book"
      newLabel="New item"
      editLabel="Edit item"
      empty="No items yet."
      queryKey={SERVICES}
      list={async () => (await unwrap(api.GET('/api/v1/services', { params: { query: { per_page: 100, sort_by: 'name' } } }))).data}
      remove={(id, idempotencyKey) => unwrap(api.DELETE('/api/v1/services/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } }))}
      columns={[
        {
          header: 'Name',
          cell: (s) => (
            <>
              {s.name}
              <Text size="xs" c="dimmed">
                {s.type === 'product' ? 'Product' : 'Service'}
                {s.taxable ? ' · taxable' : ''}
              </Text>
            </>
          ),
        },
        { header: 'Price', cell: (s) => money(s.price, me.workspace) },
      ]}
      Form={ItemForm}
    />
  );
}

function ItemForm({ row, onDone }: RowFormProps<Service>) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: {
      name: row?.name ?? '',
      price: (row?.price ?? 0) as number | string,
      type: (row?.type === 'product' ? 'product' : 'service') as 'service' | 'product',
      taxable: row?.taxable ?? true,
      description: row?.description ?? '',
    },
    submit: ({ name, price, type, taxable, description }, { idempotencyKey }) => {
      const headers = { 'idempotency-key': idempotencyKey };
      const body = { name, price: Number(price) || 0, type, taxable };
      return row
        ? unwrap(api.PUT('/api/v1/services/{id}', { params: { path: { id: row.id } }, body: { ...body, description: description.trim() || null }, headers }))
        : unwrap(api.POST('/api/v1/services', { body: { ...body, ...(description.trim() ? { description } : {}) }, headers }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: SERVICES });
      onDone();
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label={row ? 'Edit item' : 'New item'}>
      <Stack gap="sm">
        <FormError error={error} />
        <TextInput label="Name" {...form.getInputProps('name')} />
        <NumberInput label="Unit price" decimalScale={2} {...form.getInputProps('price')} />
        <NativeSelect
          label="Kind"
          data={[
            { value: 'service', label: 'Service' },
            { value: 'product', label: 'Product' },
          ]}
          {...form.getInputProps('type')}
        />
        <Checkbox label="Taxable" {...form.getInputProps('taxable', { type: 'checkbox' })} />
        <TextInput label="Description" {...form.getInputProps('description')} />
        <FormButtons save="Save item" pending={pending} onCancel={onDone} />
      </Stack>
    </form>
  );
}
