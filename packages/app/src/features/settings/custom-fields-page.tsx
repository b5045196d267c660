// "Custom fields" (A5): the extra fields of clients, requests, quotes, jobs and
// invoices (D23), in the shared settings table (A126): add one; edit its label,
// options and whether it is required (its record, key and type stay once made:
// records hold values under the key, A128); delete.
import { Checkbox, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import type { components, paths } from '@fieldwork/client';
import { useQueryClient } from '@tanstack/react-query';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { statusLabel } from '../../lib/format.ts';
import { FormButtons, type RowFormProps, SettingsTable } from './shared/settings-table.tsx';

type Field = paths['/api/v1/custom-fields']['get']['responses'][200]['content']['application/json']['data'][number];
type Body = components['schemas']['CreateCustomFieldBody'];
const MODULES: { value: Body['module_type']; label: string }[] = [
  { value: 'contact', label: 'Clients' },
  { value: 'request', label: 'Requests' },
  { value: 'quote', label: 'Quotes' },
  { value: 'job', label: 'Jobs' },
  { value: 'invoice', label: 'Invoices' },
];
const TYPES: { value: Body['type']; label: string }[] = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes or no' },
  { value: 'date', label: 'Date' },
  { value: 'select', label: 'A choice of options' },
];
const FIELDS = ['custom-fields'] as const;
const moduleLabel = (m: string) => MODULES.find((x) => x.value === m)?.label ?? m;
const typeLabel = (t: string) => TYPES.find((x) => x.value === t)?.label ?? statusLabel(t);

export default function CustomFieldsPage() {
  return (
    <SettingsTable<Field>
      title="Custom fields"
      newLabel="New custom field"
      editLabel="Edit custom field"
      empty="No custom fields yet."
      queryKey={FIELDS}
      list={async () => (await unwrap(api.GET('/api/v1/custom-fields', { params: { query: { per_page: 100, sort_by: 'module_type' } } }))).data}
      remove={(id, idempotencyKey) => unwrap(api.DELETE('/api/v1/custom-fields/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } }))}
      columns={[
        {
          header: 'Label',
          cell: (f) => (
            <>
              {f.label}
              <Text size="xs" c="dimmed">
                {f.key}
                {f.required ? ' · required' : ''}
                {f.options ? ` · ${f.options.join(', ')}` : ''}
              </Text>
            </>
          ),
        },
        { header: 'On', cell: (f) => moduleLabel(f.module_type) },
        { header: 'Type', cell: (f) => typeLabel(f.type), visibleFrom: 'sm' },
      ]}
      Form={FieldForm}
    />
  );
}

/** Options typed as one line, separated by commas. */
const optionList = (text: string) =>
  text
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);

function FieldForm({ row, onDone }: RowFormProps<Field>) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: {
      module_type: (row?.module_type ?? 'contact') as Body['module_type'],
      label: row?.label ?? '',
      key: row?.key ?? '',
      type: (row?.type ?? 'text') as Body['type'],
      options: row?.options?.join(', ') ?? '',
      required: row?.required ?? false,
    },
    submit: ({ options, ...v }, { idempotencyKey }) => {
      const list = optionList(options);
      const headers = { 'idempotency-key': idempotencyKey };
      if (row) {
        // A select field's options are always sent, so clearing them all is the API's to refuse.
        const body = { label: v.label, required: v.required, ...(row.type === 'select' ? { options: list } : {}) };
        return unwrap(api.PUT('/api/v1/custom-fields/{id}', { params: { path: { id: row.id } }, body, headers }));
      }
      return unwrap(api.POST('/api/v1/custom-fields', { body: { ...v, ...(list.length ? { options: list } : {}) }, headers }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: FIELDS });
      onDone();
    },
  });
  const optionsHelp = 'For a choice: options separated by commas';
  return (
    <form onSubmit={onSubmit} noValidate aria-label={row ? 'Edit custom field' : 'New custom field'}>
      <Stack gap="sm">
        <FormError error={error} />
        {row ? (
          <Text size="sm">
            {moduleLabel(row.module_type)} · key {row.key} · {typeLabel(row.type)}
          </Text>
        ) : (
          <NativeSelect label="Record" data={MODULES} {...form.getInputProps('module_type')} />
        )}
        <TextInput label="Label" {...form.getInputProps('label')} />
        {!row && <TextInput label="Key" description="How the API names it, such as gate_code; it cannot change later" {...form.getInputProps('key')} />}
        {!row && <NativeSelect label="Type" data={TYPES} {...form.getInputProps('type')} />}
        {(!row || row.type === 'select') && <TextInput label="Options" description={optionsHelp} {...form.getInputProps('options')} />}
        <Checkbox label="Required" {...form.getInputProps('required', { type: 'checkbox' })} />
        <FormButtons save="Save field" pending={pending} onCancel={onDone} />
      </Stack>
    </form>
  );
}
