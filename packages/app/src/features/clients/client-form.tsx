// New client and Edit: one form; the API's field errors sit by their fields.
import { Button, Group, Loader, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { ComboSelect } from '../../components/combo-select.tsx';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { CustomFieldInputs, type CustomFieldValues, customFieldFormValues, customFieldsBody, useCustomFields } from '../../components/custom-fields.tsx';
import { Page } from '../../components/page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { statusLabel } from '../../lib/format.ts';

const TYPES = ['none', 'customer', 'lead', 'former_customer', 'contractor', 'partner', 'vendor', 'other'] as const;
type ContactType = (typeof TYPES)[number];
const asType = (v: string | null | undefined): ContactType => TYPES.find((t) => t === v) ?? 'customer';

interface Values extends Record<string, unknown> {
  first_name: string;
  last_name: string;
  company: string;
  email: string;
  phone: string;
  type: ContactType;
  custom_fields: CustomFieldValues;
  /** A11 (F300): a new client's first property, made in the same request. */
  property: { address: Record<(typeof ADDRESS)[number][0], string> };
}

/** The property's address fields, labelled as "Add property" labels them. */
const ADDRESS = [
  ['street', 'Street'],
  ['street_2', 'Street 2'],
  ['city', 'City'],
  ['state', 'State'],
  ['postal_code', 'Postal code'],
  ['country', 'Country'],
] as const;
const noAddress = () => ({ street: '', street_2: '', city: '', state: '', postal_code: '', country: '' });

export function ClientFormPage() {
  const id = Number(useParams().id) || null;
  const existing = useQuery({
    queryKey: ['contacts', id],
    queryFn: () => unwrap(api.GET('/api/v1/contacts/{id}', { params: { path: { id: id ?? 0 } } })),
    enabled: id !== null,
  });
  if (id !== null && !existing.data) return existing.isError ? <Page title="Client not found" /> : <Loader aria-label="Loading" />;
  const c = existing.data?.data;
  return (
    <ClientForm
      id={id}
      title={c ? `Edit ${fullName(c)}` : 'New client'}
      initial={{ first_name: c?.first_name ?? '', last_name: c?.last_name ?? '', company: c?.company ?? '', email: c?.email ?? '', phone: c?.phone ?? '', type: asType(c?.type), custom_fields: customFieldFormValues(c?.custom_fields), property: { address: noAddress() } }}
    />
  );
}

function ClientForm({ id, title, initial }: { id: number | null; title: string; initial: Values }) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const fields = useCustomFields('contact');
  const { form, onSubmit, pending, error } = useApiForm<Values, { data: { id: number } }>({
    initialValues: initial,
    submit: (v, { idempotencyKey }) => {
      const body = { first_name: v.first_name, last_name: v.last_name, company: v.company || null, email: v.email || null, phone: v.phone || null, type: v.type, custom_fields: customFieldsBody(fields, v.custom_fields, id === null) };
      const headers = { 'idempotency-key': idempotencyKey };
      // Only the address fields typed in; none typed: no property.
      const address = Object.fromEntries(Object.entries(v.property.address).filter(([, x]) => x.trim() !== ''));
      const property = Object.keys(address).length ? { property: { address } } : {};
      return id === null
        ? unwrap(api.POST('/api/v1/contacts', { body: { ...body, ...property }, headers }))
        : unwrap(api.PUT('/api/v1/contacts/{id}', { params: { path: { id } }, body, headers }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['contacts'] });
      navigate(`/clients/${res.data.id}`);
    },
  });
  return (
    <Page title={title}>
      <form onSubmit={onSubmit} noValidate>
        <FormError error={error} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} maw={720} mt="sm">
          <TextInput label="First name" required {...form.getInputProps('first_name')} />
          <TextInput label="Last name" required {...form.getInputProps('last_name')} />
          <TextInput label="Company" {...form.getInputProps('company')} />
          <TextInput label="Email" type="email" {...form.getInputProps('email')} />
          <TextInput label="Phone" type="tel" {...form.getInputProps('phone')} />
          <ComboSelect label="Type" allowDeselect={false} data={TYPES.map((t) => ({ value: t, label: statusLabel(t) }))} {...form.getInputProps('type')} />
        </SimpleGrid>
        {id === null && (
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend>
              <Text fw={500} mt="md">
                Property address
              </Text>
            </legend>
            <SimpleGrid cols={{ base: 1, sm: 2 }} maw={720} mt="xs">
              {ADDRESS.map(([field, label]) => (
                <TextInput key={field} label={label} {...form.getInputProps(`property.address.${field}`)} />
              ))}
            </SimpleGrid>
          </fieldset>
        )}
        <Stack maw={720} mt="sm">
          <CustomFieldInputs
            defs={fields}
            values={form.getValues().custom_fields}
            errors={form.errors}
            onChange={(key, value) => form.setFieldValue('custom_fields', { ...form.getValues().custom_fields, [key]: value })}
          />
        </Stack>
        <Group mt="md">
          <Button type="submit" loading={pending}>
            Save client
          </Button>
        </Group>
      </form>
    </Page>
  );
}
