// Client and property pickers that search as you type (A3): one of each, used
// by the request form and the document editor.
import { ComboSelect } from './combo-select.tsx';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../lib/api.ts';

export const fullName = (c: { first_name: string | null; last_name: string | null }) => [c.first_name, c.last_name].filter(Boolean).join(' ');
export const addressLine = (a: { street?: string | null; city?: string | null; state?: string | null; postal_code?: string | null } | null | undefined) =>
  a ? [a.street, a.city, a.state, a.postal_code].filter(Boolean).join(', ') : '';

export function ClientPicker({ value, onChange, error, required }: { value: number | null; onChange: (id: number | null) => void; error?: string; required?: boolean }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 200);
  const list = useQuery({
    queryKey: ['contacts', 'pick', debounced],
    queryFn: () => unwrap(api.GET('/api/v1/contacts', { params: { query: { per_page: 20, sort_by: 'first_name', sort_direction: 'asc', ...(debounced ? { search: debounced } : {}) } } })),
  });
  // The chosen client stays an option while another search runs.
  const chosen = useQuery({
    queryKey: ['contacts', value],
    queryFn: () => unwrap(api.GET('/api/v1/contacts/{id}', { params: { path: { id: value ?? 0 } } })),
    enabled: value !== null,
  });
  const options = new Map<string, string>();
  if (chosen.data) options.set(String(chosen.data.data.id), fullName(chosen.data.data));
  for (const c of list.data?.data ?? []) options.set(String(c.id), fullName(c) + (c.company ? ` (${c.company})` : ''));
  return (
    <ComboSelect
      label="Client"
      placeholder="Search clients"
      searchable
      required={required}
      error={error}
      nothingFoundMessage={list.isFetching ? 'Searching…' : 'No client found'}
      filter={({ options: o }) => o}
      data={[...options].map(([v, label]) => ({ value: v, label }))}
      value={value === null ? null : String(value)}
      onSearchChange={setSearch}
      onChange={(v) => onChange(v ? Number(v) : null)}
    />
  );
}

export function PropertyPicker({ clientId, value, onChange, error }: { clientId: number | null; value: number | null; onChange: (id: number | null) => void; error?: string }) {
  const props = useQuery({
    queryKey: ['contacts', clientId, 'properties'],
    queryFn: () => unwrap(api.GET('/api/v1/contacts/{id}/properties', { params: { path: { id: clientId ?? 0 }, query: { per_page: 100 } } })),
    enabled: clientId !== null,
  });
  return (
    <ComboSelect
      label="Property"
      placeholder={clientId === null ? 'Choose a client first' : 'No property'}
      searchable
      clearable
      error={error}
      disabled={clientId === null}
      data={(props.data?.data ?? []).map((p) => ({ value: String(p.id), label: addressLine(p.address) || `Property ${p.id}` }))}
      value={value === null ? null : String(value)}
      onChange={(v) => onChange(v ? Number(v) : null)}
    />
  );
}
