// "Notifications" (A5): which customer emails and SMS are sent, and their subject,
// text and SMS templates with a live preview (POST .../preview against a sample
// document). A template equal to the default is saved as none, so it follows the default.
import { Button, Card, Checkbox, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { GrowingTextarea } from '../../components/growing-textarea.tsx';

type Setting = components['schemas']['NotificationSettingListItem'];
type NotificationType = Setting['type'];
const LABELS: Record<NotificationType, string> = {
  quote_to_customer: 'Quote sent to a client',
  invoice_to_customer: 'Invoice sent to a client',
  appointment_reminder: 'Appointment reminder',
  hub_link_to_customer: 'Hub link sent to a client',
  quote_follow_up: 'Quote follow-up (automatic)',
  invoice_reminder: 'Invoice reminder (automatic)',
};
const SETTINGS = ['notification-settings'] as const;

export default function NotificationsPage() {
  const settings = useQuery({ queryKey: SETTINGS, queryFn: async () => (await unwrap(api.GET('/api/v1/notification-settings'))).data });
  const [type, setType] = useState<NotificationType>('quote_to_customer');
  const current = settings.data?.find((s) => s.type === type);
  return (
    <Page title="Notifications">
      {settings.error && <Text role="alert">{settings.error.message}</Text>}
      {settings.data && (
        <NativeSelect
          label="Notification"
          maw={360}
          data={settings.data.map((s) => ({ value: s.type, label: LABELS[s.type] }))}
          value={type}
          onChange={(e) => {
            const found = settings.data?.find((s) => s.type === e.currentTarget.value);
            if (found) setType(found.type);
          }}
        />
      )}
      {current && <NotificationForm key={current.type} setting={current} />}
    </Page>
  );
}

function NotificationForm({ setting }: { setting: Setting }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const initial = {
    email: setting.email,
    sms: setting.sms,
    // Nested as the API names them, so its errors (templates.subject, ...) land on their fields.
    templates: {
      subject: setting.templates.subject ?? setting.defaults.subject,
      text: setting.templates.text ?? setting.defaults.text,
      sms: setting.templates.sms ?? setting.defaults.sms,
    },
  };
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: initial,
    submit: (v, { idempotencyKey }) =>
      unwrap(
        api.PUT('/api/v1/notification-settings', {
          body: { type: setting.type, email: v.email, sms: v.sms, templates: templatesOf(v.templates, setting) },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    onSuccess: () => {
      setSaved(true);
      void client.invalidateQueries({ queryKey: SETTINGS });
    },
  });
  const values = form.getValues();
  const [draft] = useDebouncedValue(templatesOf(values.templates, setting), 400);
  const preview = useQuery({
    queryKey: ['notification-preview', setting.type, draft],
    queryFn: async () => (await unwrap(api.POST('/api/v1/notification-settings/preview', { body: { type: setting.type, templates: draft } }))).data,
    retry: false,
  });
  const input = (name: 'templates.subject' | 'templates.text' | 'templates.sms') => {
    const props = form.getInputProps(name);
    return { ...props, onChange: (e: Parameters<typeof props.onChange>[0]) => (setSaved(false), props.onChange(e)) };
  };
  return (
    <Group align="flex-start" gap="md" wrap="wrap">
      <Card withBorder style={{ flex: '1 1 320px', minWidth: 0 }}>
        <form onSubmit={onSubmit} noValidate aria-label={LABELS[setting.type]}>
          <Stack gap="sm">
            <Text component="h2" fw={600}>
              {LABELS[setting.type]}
            </Text>
            <FormError error={error} />
            <Checkbox label="Send the email" {...form.getInputProps('email', { type: 'checkbox' })} />
            <Checkbox label="Send the SMS" description="Where the SMS plan and the client's consent allow it" {...form.getInputProps('sms', { type: 'checkbox' })} />
            <TextInput label="Subject" {...input('templates.subject')} />
            <GrowingTextarea label="Text" minRows={6} {...input('templates.text')} />
            <GrowingTextarea label="SMS text" minRows={2} {...input('templates.sms')} />
            <Text size="sm" c="dimmed" style={{ wordBreak: 'break-word' }}>
              Placeholders: {setting.placeholders.map((p) => `{{${p}}}`).join(' ')}
            </Text>
            <Group>
              <Button type="submit" loading={pending}>
                Save
              </Button>
              {saved && !pending && (
                <Text role="status" fw={500}>
                  Saved
                </Text>
              )}
            </Group>
          </Stack>
        </form>
      </Card>
      <Card withBorder style={{ flex: '1 1 320px', minWidth: 0 }} aria-live="polite">
        <Stack gap="xs">
          <Text component="h2" fw={600}>
            Preview
          </Text>
          <Text size="sm" c="dimmed">
            With a sample client and document.
          </Text>
          {preview.error && <Text c="red.8">{preview.error instanceof Error ? preview.error.message : 'The template has an error.'}</Text>}
          {preview.data && (
            <>
              <Text fw={600} data-preview="subject" style={{ wordBreak: 'break-word' }}>
                {preview.data.subject}
              </Text>
              <Text data-preview="text" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {preview.data.text}
              </Text>
              <Text size="sm" fw={600}>
                SMS
              </Text>
              <Text size="sm" data-preview="sms" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {preview.data.sms}
              </Text>
            </>
          )}
        </Stack>
      </Card>
    </Group>
  );
}

/** The templates to send: null where the text is the default (or empty), so it follows the default. */
function templatesOf(v: { subject: string; text: string; sms: string }, setting: Setting) {
  const own = (value: string, fallback: string) => (value.trim() === '' || value === fallback ? null : value);
  return { subject: own(v.subject, setting.defaults.subject), text: own(v.text, setting.defaults.text), sms: own(v.sms, setting.defaults.sms) };
}
