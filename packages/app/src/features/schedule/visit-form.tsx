// "New visit" and a visit's "Edit" form (A4): the keyboard path for every drag.
// A visit (SPEC Event) has no client of its own: its client is its job's, so
// "Client" narrows "Job" and choosing a job fills in its client.
import { Button, Checkbox, Group, NativeSelect, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { addDays } from '../../lib/format.ts';
import { type ContactItem, changeSeries, changesTiming, createVisit, isRecurring, type JobItem, type Member, memberName, type Visit } from './data.ts';
import { SeriesQuestion, type SeriesScope } from './series-question.tsx';

export interface Slot {
  date: string;
  start_time: string | null;
  end_time: string | null;
  all_day: boolean;
  assignee_ids?: string[];
  job_id?: number | null;
}

interface Values extends Record<string, unknown> {
  name: string;
  contact_id: string | null;
  job_id: string | null;
  date: string;
  start_time: string;
  end_time: string;
  all_day: boolean;
  assignee_ids: string[];
  /** For a visit of a series moved in time: what the change is for (A7), asked at "Save visit". */
  scope: SeriesScope | null;
}

const days = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);

export function VisitForm(props: { visit?: Visit; slot?: Slot; team: Member[]; jobs: JobItem[]; contacts: ContactItem[]; onDone: () => void }) {
  const { visit, slot, team, jobs, contacts } = props;
  const client = useQueryClient();
  const job = (id: string | null) => jobs.find((j) => String(j.id) === id);
  const initialJob = visit?.job_id ?? slot?.job_id ?? null;
  const initial: Values = {
    name: visit?.name ?? (initialJob !== null ? (jobs.find((j) => j.id === initialJob)?.name ?? '') : ''),
    job_id: initialJob === null ? null : String(initialJob),
    contact_id: null,
    date: visit?.start_date ?? slot?.date ?? '',
    start_time: visit?.start_time ?? slot?.start_time ?? '',
    end_time: visit?.end_time ?? slot?.end_time ?? '',
    all_day: visit?.all_day ?? slot?.all_day ?? false,
    assignee_ids: visit?.assignee_ids ?? slot?.assignee_ids ?? [],
    scope: null,
  };
  initial.contact_id = job(initial.job_id)?.contact_id != null ? String(job(initial.job_id)?.contact_id) : null;
  // An edited multi-day visit keeps its length in days.
  const length = visit ? Math.max(0, days(visit.start_date, visit.end_date)) : 0;

  const { form, onSubmit, pending, error } = useApiForm<Values, unknown>({
    initialValues: initial,
    validate: {
      date: (v) => (/^\d{4}-\d\d-\d\d$/.test(v) ? null : 'Enter a date'),
      start_time: (v, all) => (all.all_day || /^\d\d:\d\d$/.test(v) ? null : 'Enter a start time'),
      end_time: (v, all) => (all.all_day || !v || v > all.start_time || length > 0 ? null : 'Must be after the start time'),
      job_id: (v, all) => (all.contact_id && !v ? "Pick one of this client's jobs, or clear the client" : null),
    },
    submit: async (v, { idempotencyKey }) => {
      const body = {
        name: v.name.trim() || null,
        job_id: v.job_id === null ? null : Number(v.job_id),
        start_date: v.date,
        end_date: addDays(v.date, length),
        start_time: v.all_day ? null : v.start_time,
        end_time: v.all_day ? null : v.end_time || null,
        all_day: v.all_day,
        multi_day: length > 0,
        assignee_ids: v.assignee_ids,
      };
      if (visit && v.scope === 'following') return changeSeries(visit, body, idempotencyKey);
      if (visit) return unwrap(api.PUT('/api/v1/events/{id}', { params: { path: { id: visit.id } }, body, headers: { 'idempotency-key': idempotencyKey } }));
      return createVisit(body, idempotencyKey);
    },
    onSuccess: async () => {
      await Promise.all([client.invalidateQueries({ queryKey: ['events'] }), client.invalidateQueries({ queryKey: ['jobs'] })]);
      props.onDone();
    },
  });
  // "Save visit" on a visit of a series moved in time asks first; the answer saves.
  const [asking, setAsking] = useState(false);
  const timingOf = (v: Values) => ({ start_date: v.date, end_date: addDays(v.date, length), start_time: v.all_day ? null : v.start_time, end_time: v.all_day ? null : v.end_time || null, all_day: v.all_day });
  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (visit && isRecurring(visit) && changesTiming(visit, timingOf(form.getValues())) && !form.validate().hasErrors) setAsking(true);
    else onSubmit();
  };
  const answer = (scope: SeriesScope | null) => {
    setAsking(false);
    if (scope === null) return;
    form.setFieldValue('scope', scope);
    onSubmit();
  };

  const values = form.getValues();
  const jobOptions = jobs
    .filter((j) => !values.contact_id || String(j.contact_id) === values.contact_id)
    .map((j) => ({ value: String(j.id), label: `#${j.number} ${j.name ?? ''}`.trim() }));
  if (initial.job_id && !jobOptions.some((o) => o.value === initial.job_id)) jobOptions.push({ value: initial.job_id, label: `Job ${initial.job_id}` });

  return (
    <form onSubmit={save} noValidate>
      <Stack gap="sm">
        <FormError error={error} />
        <TextInput label="Title" {...form.getInputProps('name')} />
        {/* Native selects: a real combobox each, one element per label, typing jumps to an option. */}
        <NativeSelect
          label="Client"
          data={[{ value: '', label: 'Any client' }, ...contacts.map((c) => ({ value: String(c.id), label: [c.first_name, c.last_name].filter(Boolean).join(' ') || `Client ${c.id}` }))]}
          {...form.getInputProps('contact_id')}
          value={values.contact_id ?? ''}
          onChange={(e) => {
            const v = e.currentTarget.value || null;
            form.setFieldValue('contact_id', v);
            if (v && job(form.getValues().job_id)?.contact_id !== Number(v)) form.setFieldValue('job_id', null);
          }}
        />
        <NativeSelect
          label="Job"
          data={[{ value: '', label: 'No job' }, ...jobOptions]}
          {...form.getInputProps('job_id')}
          value={values.job_id ?? ''}
          onChange={(e) => {
            const v = e.currentTarget.value || null;
            form.setFieldValue('job_id', v);
            const picked = job(v);
            if (picked?.contact_id != null) form.setFieldValue('contact_id', String(picked.contact_id));
            if (picked && !form.getValues().name) form.setFieldValue('name', picked.name ?? '');
          }}
        />
        <TextInput label="Date" type="date" required {...form.getInputProps('date')} />
        <Checkbox label="All day" {...form.getInputProps('all_day', { type: 'checkbox' })} />
        {!values.all_day && (
          <SimpleGrid cols={2}>
            <TextInput label="Start time" type="time" required {...form.getInputProps('start_time')} />
            <TextInput label="End time" type="time" {...form.getInputProps('end_time')} />
          </SimpleGrid>
        )}
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <Text component="legend" size="sm" fw={500} mb={4}>
            Assigned to
          </Text>
          <Group gap="sm">
            {team.map((m) => (
              <Checkbox
                key={m.user_id}
                label={memberName(m)}
                checked={values.assignee_ids.includes(m.user_id)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  const now = form.getValues().assignee_ids;
                  form.setFieldValue('assignee_ids', on ? [...now, m.user_id] : now.filter((id) => id !== m.user_id));
                }}
              />
            ))}
          </Group>
        </fieldset>
        {asking && visit ? (
          <SeriesQuestion visit={visit} onAnswer={answer} />
        ) : (
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onDone}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              Save visit
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
