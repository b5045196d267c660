// D23 in the forms: the workspace's custom fields of a module (GET
// /api/v1/custom-fields?module_type=...) as inputs of their type, with their
// options and required marks, sent as `custom_fields`; the API's error naming
// `custom_fields.<key>` sits by its field (useApiForm keeps what was typed).
// A session that may not read the definitions gets no inputs, not a broken page.
import { Checkbox, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { ComboSelect } from './combo-select.tsx';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, unwrap } from '../lib/api.ts';
import { formatDate } from '../lib/format.ts';
import { useCan } from '../lib/session.ts';

export type CustomFieldModule = 'contact' | 'request' | 'quote' | 'job' | 'invoice';

export interface CustomFieldDef {
  key: string;
  label: string;
  type: string;
  options: string[] | null;
  required: boolean;
}

/** What the form holds per key: text as typed (numbers too, so a bad one reaches the API's check), booleans as booleans. */
export type CustomFieldValues = Record<string, string | boolean>;

export const customFieldsQuery = (moduleType: CustomFieldModule) =>
  queryOptions({
    queryKey: ['custom-fields', moduleType],
    queryFn: () => unwrap(api.GET('/api/v1/custom-fields', { params: { query: { module_type: moduleType, per_page: 100, sort_by: 'id', sort_direction: 'asc' } } })),
    retry: false,
    staleTime: 60_000,
  });

/** The module's definitions; none when the session lacks `custom_fields:read` or the list fails. */
export function useCustomFields(moduleType: CustomFieldModule): CustomFieldDef[] {
  const allowed = useCan()('custom_fields:read');
  const defs = useQuery({ ...customFieldsQuery(moduleType), enabled: allowed });
  return allowed ? (defs.data?.data ?? []) : [];
}

/** A stored record's `custom_fields` as form values. */
export function customFieldFormValues(stored: unknown): CustomFieldValues {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return {};
  const out: CustomFieldValues = {};
  for (const [k, v] of Object.entries(stored)) {
    if (typeof v === 'boolean' || typeof v === 'string') out[k] = v;
    else if (typeof v === 'number') out[k] = String(v);
  }
  return out;
}

/**
 * The `custom_fields` of a create (`create`) or update body: one entry per
 * definition. Empty is left out of a create (a required one then gets the API's
 * "is required") and is `null` on an update (it clears the value). Undefined when
 * the module has no definitions: the body then leaves the record's values alone.
 */
export function customFieldsBody(defs: CustomFieldDef[], values: CustomFieldValues, create: boolean): Record<string, unknown> | undefined {
  if (defs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const v = values[def.key];
    if (typeof v === 'boolean') out[def.key] = v;
    else if (v === undefined || v.trim() === '') {
      if (!create) out[def.key] = null;
    } else if (def.type === 'number') {
      const n = Number(v.trim());
      out[def.key] = Number.isFinite(n) ? n : v; // not a number: the API says so next to the field
    } else out[def.key] = def.type === 'text' ? v : v.trim();
  }
  return out;
}

export interface CustomFieldInputsProps {
  defs: CustomFieldDef[];
  values: CustomFieldValues;
  /** The form's errors; the API's are keyed `custom_fields.<key>`. */
  errors: Record<string, ReactNode>;
  onChange: (key: string, value: string | boolean) => void;
}

/** One input per definition, of its type. */
export function CustomFieldInputs({ defs, values, errors, onChange }: CustomFieldInputsProps) {
  if (defs.length === 0) return null;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} data-testid="custom-fields">
      {defs.map((def) => {
        const error = errors[`custom_fields.${def.key}`];
        const value = values[def.key];
        const text = typeof value === 'string' ? value : '';
        switch (def.type) {
          case 'boolean':
            return <Checkbox key={def.key} mt="lg" label={def.label} required={def.required} error={error} checked={value === true} onChange={(e) => onChange(def.key, e.currentTarget.checked)} />;
          case 'select':
            return (
              <ComboSelect
                key={def.key}
                label={def.label}
                required={def.required}
                clearable={!def.required}
                data={def.options ?? []}
                error={error}
                value={text || null}
                onChange={(v) => onChange(def.key, v ?? '')}
              />
            );
          default:
            return (
              <TextInput
                key={def.key}
                label={def.label}
                required={def.required}
                type={def.type === 'date' ? 'date' : 'text'}
                inputMode={def.type === 'number' ? 'decimal' : undefined}
                error={error}
                value={text}
                onChange={(e) => onChange(def.key, e.currentTarget.value)}
              />
            );
        }
      })}
    </SimpleGrid>
  );
}

function shown(def: CustomFieldDef | undefined, v: unknown): string {
  if (typeof v === 'boolean') return v ? 'Yes' : 'No';
  if (def?.type === 'date' && typeof v === 'string') return formatDate(v);
  return typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v);
}

/** A record's values on its page, labelled by their definitions (the key when there is none to read). */
export function CustomFieldList({ moduleType, values }: { moduleType: CustomFieldModule; values: unknown }) {
  const defs = useCustomFields(moduleType);
  if (!values || typeof values !== 'object' || Array.isArray(values)) return null;
  const entries = Object.entries(values).filter(([, v]) => v !== null && v !== '');
  if (entries.length === 0) return null;
  const byKey = new Map(defs.map((d) => [d.key, d]));
  return (
    <Stack gap={2} data-testid="custom-field-values">
      {entries.map(([k, v]) => (
        <Text key={k} size="sm" style={{ overflowWrap: 'anywhere' }}>
          <Text span fw={600} size="sm">
            {byKey.get(k)?.label ?? k}:
          </Text>{' '}
          {shown(byKey.get(k), v)}
        </Text>
      ))}
    </Stack>
  );
}
