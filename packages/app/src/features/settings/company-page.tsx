// "Company" (A5): the fields of `fieldwork workspace set` and the business's
// contact details (A64), written with PUT /api/v1/workspace. The server checks
// country, currency, time zone and emails; its errors show by their fields.
import { Button, Card, Group, Image, Input, NativeSelect, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';
import { countryOptions, currencyOptions, timeZoneOptions } from '../../lib/regions.ts';
import { ME_KEY } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';
import { GrowingTextarea } from '../../components/growing-textarea.tsx';

type Workspace = components['schemas']['Workspace'];
const TEXT_FIELDS = ['name', 'country', 'currency', 'timezone', 'industry', 'about', 'reply_to', 'address', 'phone', 'email', 'website', 'tax_number'] as const;
type Values = Record<(typeof TEXT_FIELDS)[number], string> & { week_start: 'monday' | 'sunday' };

const toValues = (w: Workspace): Values => ({
  ...(Object.fromEntries(TEXT_FIELDS.map((f) => [f, w[f] ?? ''])) as Record<(typeof TEXT_FIELDS)[number], string>),
  week_start: w.week_start,
});

export default function CompanyPage() {
  const workspace = useQuery({ queryKey: ['workspace'], queryFn: async () => (await unwrap(api.GET('/api/v1/workspace'))).data });
  return (
    <Page title="Company">
      {workspace.data ? (
        <Stack gap="md" maw={760}>
          <LogoCard workspace={workspace.data} />
          <CompanyForm workspace={workspace.data} />
        </Stack>
      ) : workspace.error ? <Text role="alert">{workspace.error.message}</Text> : <Text c="dimmed">Loading…</Text>}
    </Page>
  );
}

function CompanyForm({ workspace }: { workspace: Workspace }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: toValues(workspace),
    submit: (body, { idempotencyKey }) => unwrap(api.PUT('/api/v1/workspace', { body, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (result) => {
      setSaved(true);
      form.setValues(toValues(result.data));
      form.resetDirty(toValues(result.data));
      client.setQueryData(['workspace'], result.data);
      void client.invalidateQueries({ queryKey: ME_KEY }); // the header shows the workspace's name
    },
  });
  const input = (name: keyof Values) => {
    const props = form.getInputProps(name);
    return { ...props, onChange: (e: Parameters<typeof props.onChange>[0]) => (setSaved(false), props.onChange(e)) };
  };
  const values = form.getValues();
  // A163: the browser's own lists in native selects (type-ahead by keyboard, the
  // phone's own picker); '' is "none", which the API takes as clearing the value.
  const none = { value: '', label: 'None' };
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md" maw={760}>
        <FormError error={error} />
        <Card withBorder>
          <Stack gap="sm">
            <Text component="h2" fw={600}>
              Business
            </Text>
            <TextInput label="Name" required {...input('name')} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Industry" {...input('industry')} />
              <TextInput label="Tax or licence number" {...input('tax_number')} />
            </SimpleGrid>
            <GrowingTextarea label="About" minRows={2} {...input('about')} />
          </Stack>
        </Card>
        <Card withBorder>
          <Stack gap="sm">
            <Text component="h2" fw={600}>
              Contact details
            </Text>
            <Text size="sm" c="dimmed">
              Shown on quotes, invoices, the client hub and customer emails.
            </Text>
            <GrowingTextarea label="Address" minRows={2} {...input('address')} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Phone" type="tel" {...input('phone')} />
              <TextInput label="Email" type="email" {...input('email')} />
              <TextInput label="Website" type="url" placeholder="https://" {...input('website')} />
              <TextInput label="Reply-to email" type="email" description="Where customers' replies to emails go" {...input('reply_to')} />
            </SimpleGrid>
          </Stack>
        </Card>
        <Card withBorder>
          <Stack gap="sm">
            <Text component="h2" fw={600}>
              Region
            </Text>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <NativeSelect label="Country" data={[none, ...countryOptions(values.country)]} {...input('country')} />
              <NativeSelect label="Currency" description="None: the country's" data={[none, ...currencyOptions(values.currency)]} {...input('currency')} />
              <NativeSelect label="Time zone" description="Every date and time is shown in it" data={timeZoneOptions(values.timezone)} {...input('timezone')} />
              <NativeSelect
                label="Week starts on"
                data={[
                  { value: 'monday', label: 'Monday' },
                  { value: 'sunday', label: 'Sunday' },
                ]}
                {...input('week_start')}
              />
            </SimpleGrid>
          </Stack>
        </Card>
        <Group>
          <Button type="submit" loading={pending}>
            Save
          </Button>
          {saved && !form.isDirty() && (
            <Text role="status" fw={500}>
              Saved
            </Text>
          )}
        </Group>
      </Stack>
    </form>
  );
}

/**
 * "Logo" (A125): a PNG or JPEG sent as soon as it is chosen (PUT /api/v1/workspace/logo),
 * a preview of the saved one, and "Remove logo". The API's refusal shows by the input.
 */
function LogoCard({ workspace }: { workspace: Workspace }) {
  const client = useQueryClient();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const done = (result: { data: Workspace }) => {
    client.setQueryData(['workspace'], result.data);
    if (input.current) input.current.value = '';
  };
  const upload = useApiAction({
    run: (file: File, { idempotencyKey }) =>
      unwrap(
        api.PUT('/api/v1/workspace/logo', {
          body: { file: file.name },
          // The multipart body is built here: the typed body only names the field.
          bodySerializer: () => {
            const fd = new FormData();
            fd.set('file', file, file.name);
            return fd;
          },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    onSuccess: done,
  });
  const remove = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.DELETE('/api/v1/workspace/logo', { headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: done,
  });
  const failure = upload.error ?? remove.error;
  const error = failure ? (failure instanceof ApiFailure ? (failure.fieldErrors().file ?? failure.message) : 'Could not reach the server. Try again.') : null;
  return (
    <Card withBorder>
      <Stack gap="sm">
        <Text component="h2" fw={600}>
          Logo
        </Text>
        {workspace.logo_url ? (
          <Image src={workspace.logo_url} alt="Current logo" mah={80} maw={240} fit="contain" style={{ alignSelf: 'flex-start' }} />
        ) : (
          <Text size="sm" c="dimmed">
            No logo yet.
          </Text>
        )}
        <Input.Wrapper label="Logo" description="PNG or JPEG, at most 1 MB. Shown on quotes, invoices, the client hub and customer emails." error={error} id={id}>
          <input
            ref={input}
            id={id}
            type="file"
            accept="image/png,image/jpeg"
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-description${error ? ` ${id}-error` : ''}`}
            disabled={upload.pending}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              remove.reset();
              if (file) upload.run(file);
            }}
            style={{ display: 'block', maxWidth: '100%', marginTop: 4 }}
          />
        </Input.Wrapper>
        {workspace.logo_url && (
          <Group>
            <Button variant="default" color="red" loading={remove.pending} onClick={() => (upload.reset(), remove.run())}>
              Remove logo
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
