// The job form's "Repeats" section (A7): the presets, "On days", "Starts on",
// "Ends", the visit's times and crew, "Invoicing", and "Next visits": the next
// five dates and the rule in words, as the API's schedule-preview answers them.
import type { components } from '@fieldwork/client';
import { Checkbox, Group, List, NativeSelect, Paper, Radio, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { DocumentValues } from '../../components/document-editor.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';
import { formatDate } from '../../lib/format.ts';
import { allPages } from '../../lib/pages.ts';
import { WEEKDAYS, weekdayOf } from '../../lib/rrule.ts';
import { asInvoicing, asRepeats, DAY_LABELS, type Ends, INVOICING, type Invoicing, REPEATS, ruleOf, type ScheduleValues, WEEKS } from './recurrence.ts';

export type JobFields = { schedule: ScheduleValues; invoicing: Invoicing };
export type JobValues = DocumentValues & JobFields;
type Member = components['schemas']['User'];

const memberName = (m: Pick<Member, 'first_name' | 'last_name' | 'email'>) => [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;
const WEEKDAY_NAME = new Intl.DateTimeFormat('en', { weekday: 'short', timeZone: 'UTC' });
const isDate = (v: string) => /^\d{4}-\d\d-\d\d$/.test(v);
const FIELDSET = { border: 0, padding: 0, margin: 0, minWidth: 0 };

export function useTeamMembers(enabled = true) {
  return useQuery({
    queryKey: ['users', 'all'],
    queryFn: () => allPages('/api/v1/users', { query: { per_page: 100, sort_by: 'first_name', sort_direction: 'asc' } }),
    staleTime: 300_000,
    enabled,
  });
}

export function ScheduleFields({ form, today }: { form: UseFormReturnType<JobValues>; today: string }) {
  const s = form.getValues().schedule;
  const errors = form.errors;
  const team = useTeamMembers(s.repeats !== 'never');
  const errorOf = (path: string) => (typeof errors[path] === 'string' ? errors[path] : undefined);
  const set = (patch: Partial<ScheduleValues>) => {
    for (const key of Object.keys(patch)) form.clearFieldError(`schedule.${key}`);
    form.setFieldValue('schedule', { ...form.getValues().schedule, ...patch });
  };
  const preview = usePreview(s, today);
  const custom = s.repeats === 'custom';
  // A rule the API refused while typing shows where the rule is typed; a refusal of the saved form wins.
  const ruleError = errorOf('schedule.rrule') ?? (preview.error ?? undefined);

  const repeatsChanged = (value: string) => {
    const repeats = asRepeats(value);
    const now = form.getValues().schedule;
    const patch: Partial<ScheduleValues> = { repeats };
    // "Custom" starts from the rule the presets made; a weekly kind from the first date's weekday.
    if (repeats === 'custom' && now.repeats !== 'never' && now.repeats !== 'custom') patch.rrule = ruleOf(now);
    if (WEEKS[repeats] && now.days.length === 0 && isDate(now.starts_on)) patch.days = [weekdayOf(now.starts_on)];
    form.clearFieldError('schedule.repeats');
    form.clearFieldError('schedule.rrule');
    set(patch);
  };

  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NativeSelect
          label="Repeats"
          data={REPEATS.map((r) => ({ value: r.value, label: r.label }))}
          value={s.repeats}
          error={errorOf('schedule.repeats') ?? (custom ? undefined : ruleError)}
          onChange={(e) => repeatsChanged(e.currentTarget.value)}
        />
        <NativeSelect
          label="Invoicing"
          data={INVOICING.map((i) => ({ value: i.value, label: i.label }))}
          {...form.getInputProps('invoicing')}
          onChange={(e) => form.setFieldValue('invoicing', asInvoicing(e.currentTarget.value))}
        />
      </SimpleGrid>
      {s.repeats !== 'never' && (
        <Paper withBorder p="sm">
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Starts on" type="date" required {...form.getInputProps('schedule.starts_on')} />
              {custom && (
                <TextInput
                  label="Rule"
                  description="An RRULE, such as FREQ=MONTHLY;BYDAY=1MO"
                  required
                  autoComplete="off"
                  spellCheck={false}
                  {...form.getInputProps('schedule.rrule')}
                  error={ruleError}
                />
              )}
            </SimpleGrid>
            {WEEKS[s.repeats] !== undefined && (
              <fieldset style={FIELDSET}>
                <Text component="legend" size="sm" fw={500} mb={4}>
                  On days
                </Text>
                <Group gap="sm">
                  {WEEKDAYS.map((d) => (
                    <Checkbox
                      key={d}
                      label={DAY_LABELS[d]}
                      checked={s.days.includes(d)}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        const days = form.getValues().schedule.days;
                        set({ days: on ? [...days, d] : days.filter((x) => x !== d) });
                      }}
                    />
                  ))}
                </Group>
              </fieldset>
            )}
            {!custom && (
              <Radio.Group label="Ends" value={s.ends} onChange={(v) => set({ ends: v === 'on' || v === 'after' ? v : ('never' satisfies Ends) })}>
                <Stack gap={6} mt={4}>
                  <Radio value="never" label="Never" />
                  <Group gap="xs" align="center" wrap="wrap">
                    <Radio value="on" label="On date" />
                    {s.ends === 'on' && <TextInput label="End date" type="date" {...form.getInputProps('schedule.until')} />}
                  </Group>
                  <Group gap="xs" align="center" wrap="wrap">
                    <Radio value="after" label="After" />
                    {s.ends === 'after' && <TextInput label="Number of visits" type="number" min={1} max={1000} inputMode="numeric" w={160} {...form.getInputProps('schedule.count')} />}
                  </Group>
                </Stack>
              </Radio.Group>
            )}
            <Checkbox label="All day" {...form.getInputProps('schedule.all_day', { type: 'checkbox' })} />
            {!s.all_day && (
              <SimpleGrid cols={2}>
                <TextInput label="Start time" type="time" required {...form.getInputProps('schedule.start_time')} />
                <TextInput label="End time" type="time" required {...form.getInputProps('schedule.end_time')} />
              </SimpleGrid>
            )}
            <fieldset style={FIELDSET}>
              <Text component="legend" size="sm" fw={500} mb={4}>
                Assigned to
              </Text>
              <Group gap="sm">
                {(team.data ?? []).map((m) => (
                  <Checkbox
                    key={m.user_id}
                    label={memberName(m)}
                    checked={s.assignee_ids.includes(m.user_id)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      const ids = form.getValues().schedule.assignee_ids;
                      set({ assignee_ids: on ? [...ids, m.user_id] : ids.filter((id) => id !== m.user_id) });
                    }}
                  />
                ))}
              </Group>
              {errorOf('schedule.assignee_ids') && (
                <Text size="xs" c="red" role="alert">
                  {errorOf('schedule.assignee_ids')}
                </Text>
              )}
            </fieldset>
            <NextVisits preview={preview} showError={!custom} />
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}

interface Preview {
  dates: string[];
  description: string | null;
  error: string | null;
  loading: boolean;
}

/** The next five visits of the rule as typed (asked for once typing pauses). */
function usePreview(s: ScheduleValues, today: string): Preview {
  const rrule = s.repeats === 'never' ? '' : ruleOf(s);
  const [key] = useDebouncedValue(`${s.starts_on} ${rrule}`, 300);
  const asked = { starts_on: key.slice(0, key.indexOf(' ')), rrule: key.slice(key.indexOf(' ') + 1) };
  // A series that began before today: ask for more dates and show those from today on.
  const count = asked.starts_on < today ? 50 : 5;
  const query = useQuery({
    queryKey: ['schedule-preview', asked.rrule, asked.starts_on, count],
    enabled: asked.rrule !== '' && isDate(asked.starts_on),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => (await unwrap(api.POST('/api/v1/jobs/schedule-preview', { body: { rrule: asked.rrule, starts_on: asked.starts_on, count } }))).data,
  });
  const failure = query.error instanceof ApiFailure ? query.error : null;
  return {
    dates: (query.data?.dates ?? []).filter((d) => d >= today).slice(0, 5),
    description: query.data?.description ?? null,
    error: failure ? (failure.fieldErrors().rrule ?? failure.fieldErrors().starts_on ?? failure.message) : query.error ? query.error.message : null,
    loading: query.isFetching,
  };
}

function NextVisits({ preview, showError }: { preview: Preview; showError: boolean }) {
  return (
    <section aria-live="polite" aria-labelledby="next-visits-title">
      <Title order={2} size="h5" id="next-visits-title">
        Next visits
      </Title>
      {preview.error ? (
        <Text size="sm" c="dimmed">
          {showError ? preview.error : 'None until the rule is corrected.'}
        </Text>
      ) : (
        <>
          {preview.description && <Text size="sm">{preview.description}</Text>}
          {preview.dates.length > 0 ? (
            <List size="sm" listStyleType="none" spacing={2}>
              {preview.dates.map((d) => (
                <List.Item key={d}>
                  <time dateTime={d}>{`${WEEKDAY_NAME.format(new Date(`${d}T00:00:00Z`))}, ${formatDate(d)}`}</time>
                </List.Item>
              ))}
            </List>
          ) : (
            !preview.loading &&
            preview.description && (
              <Text size="sm" c="dimmed">
                No visits from today on.
              </Text>
            )
          )}
        </>
      )}
    </section>
  );
}
