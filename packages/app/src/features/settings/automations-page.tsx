// "Automations" (A9, E24, A180): the automatic quote follow-ups, invoice reminders and
// visit reminders, with PUT /api/v1/workspace/automations. Days are typed as a list
// ("3, 7"); the server checks ranges, repeats and counts, and its errors show by
// their fields, naming the day they are about.
import { Button, Card, Group, NumberInput, Stack, Text, TextInput } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';

type Automations = Required<components['schemas']['UpdateWorkspaceAutomationsBody']>;
type Values = {
  quote_follow_up_days: string;
  invoice_reminder_days: string;
  visit_reminder_hours: number | string;
};
const KEY = ['workspace', 'automations'] as const;

const toValues = (a: Automations): Values => ({
  quote_follow_up_days: a.quote_follow_up_days.join(', '),
  invoice_reminder_days: a.invoice_reminder_days.join(', '),
  visit_reminder_hours: a.visit_reminder_hours,
});

/** "3, 7" -> [3, 7]; what is not a number is sent as typed, so the server names it. */
const daysOf = (text: string): (number | string)[] =>
  text
    .split(/[,\s]+/)
    .filter(Boolean)
    .map((s) => (/^-?\d+$/.test(s) ? Number(s) : s));

/** A9: the API's detail on one day ("quote_follow_up_days.1") shown by its field, saying which day. */
function namingTheDay(err: unknown, sent: Record<string, unknown>): never {
  if (err instanceof ApiFailure && err.body?.details) {
    for (const d of err.body.details) {
      const [field, index] = d.path.filter((p) => p !== 'body');
      if (typeof index === 'number' && typeof field === 'string') {
        const list = sent[field];
        d.message = `${Array.isArray(list) && list[index] !== undefined ? list[index] : `Item ${index + 1}`}: ${d.message}`;
        d.path = [field];
      }
    }
  }
  throw err;
}

export default function AutomationsPage() {
  const automations = useQuery({ queryKey: KEY, queryFn: async () => (await unwrap(api.GET('/api/v1/workspace/automations'))).data });
  return (
    <Page title="Automations">
      {automations.data ? (
        <AutomationsForm automations={automations.data} />
      ) : automations.error ? (
        <Text role="alert">{automations.error.message}</Text>
      ) : (
        <Text c="dimmed">Loading…</Text>
      )}
    </Page>
  );
}

function AutomationsForm({ automations }: { automations: Automations }) {
  const client = useQueryClient();
  const [saved, setSaved] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: toValues(automations),
    submit: async (values, { idempotencyKey }) => {
      const body = {
        quote_follow_up_days: daysOf(values.quote_follow_up_days),
        invoice_reminder_days: daysOf(values.invoice_reminder_days),
        visit_reminder_hours: values.visit_reminder_hours === '' ? 0 : values.visit_reminder_hours,
      };
      try {
        // Typed as the API's numbers; a word typed among the days goes as typed so the server names it.
        return await unwrap(api.PUT('/api/v1/workspace/automations', { body: body as Automations, headers: { 'idempotency-key': idempotencyKey } }));
      } catch (err) {
        return namingTheDay(err, body);
      }
    },
    onSuccess: (result) => {
      setSaved(true);
      form.setValues(toValues(result.data));
      form.resetDirty(toValues(result.data));
      client.setQueryData(KEY, result.data);
    },
  });
  const input = (name: 'quote_follow_up_days' | 'invoice_reminder_days' | 'visit_reminder_hours') => {
    const props = form.getInputProps(name);
    return { ...props, onChange: (e: Parameters<typeof props.onChange>[0]) => (setSaved(false), props.onChange(e)) };
  };
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Automations">
      <Stack gap="md" maw={640}>
        <FormError error={error} />
        <Card withBorder>
          <Stack gap="sm">
            <Text size="sm">
              Clients get these emails (and SMS, where their consent and your SMS plan allow it) by themselves. Quote and invoice reminders go out at 9:00 in
              your time zone; their wording is under Notifications.
            </Text>
            <TextInput
              label="Quote follow-ups (days after sending)"
              description="Up to 3 days from 1 to 60, such as 3, 7; while the quote awaits an answer. Empty: none."
              inputMode="numeric"
              {...input('quote_follow_up_days')}
            />
            <TextInput
              label="Invoice reminders (days from due date)"
              description="Up to 4 days from -30 to 90, such as -3, 0, 7 (negative: before the due date); while a balance is left. Empty: none."
              {...input('invoice_reminder_days')}
            />
            <NumberInput
              label="Visit reminders (hours before)"
              description="From 0 to 168; 0 is off. An all-day visit: that many hours before 9:00."
              allowDecimal={false}
              {...input('visit_reminder_hours')}
            />
          </Stack>
        </Card>
        <Group>
          <Button type="submit" loading={pending}>
            Save automations
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
