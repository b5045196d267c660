// The header's "Search" (A2): clients, requests, quotes, jobs and invoices by
// name, number, email, phone or address, through each list's own `search`
// (the documented list operations); choosing one opens it, by mouse or keys.
import { TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ComboSelect } from '../components/combo-select.tsx';
import { OnFirstUse } from '../components/on-first-use.tsx';
import { api, unwrap } from '../lib/api.ts';
import { isOffice, type Role } from '../lib/session.ts';
import { SEARCH_BOX } from './search-box.ts';

interface Hit {
  value: string;
  label: string;
}

const per_page = 5;
const named = (prefix: string, r: { number: number; name: string | null }) => `${prefix} #${r.number}${r.name ? ` · ${r.name}` : ''}`;

async function searchAll(search: string, office: boolean): Promise<{ group: string; items: Hit[] }[]> {
  const query = { search, per_page };
  const [clients, properties, requests, quotes, jobs, invoices] = await Promise.all([
    unwrap(api.GET('/api/v1/contacts', { params: { query } })),
    unwrap(api.GET('/api/v1/properties', { params: { query } })),
    office ? unwrap(api.GET('/api/v1/requests', { params: { query } })) : null,
    office ? unwrap(api.GET('/api/v1/quotes', { params: { query } })) : null,
    unwrap(api.GET('/api/v1/jobs', { params: { query } })),
    office ? unwrap(api.GET('/api/v1/invoices', { params: { query } })) : null,
  ]);
  const clientHits: Hit[] = clients.data.map((c) => ({
    value: `/clients/${c.id}`,
    label: [`${c.first_name} ${c.last_name}`.trim(), c.company, c.email].filter(Boolean).join(' · '),
  }));
  // An address finds its property's client.
  for (const p of properties.data) {
    const contactId = p.contact_ids[0];
    if (!contactId || clientHits.some((h) => h.value === `/clients/${contactId}`)) continue;
    clientHits.push({ value: `/clients/${contactId}`, label: [p.address.street, p.address.city].filter(Boolean).join(', ') });
  }
  const groups = [
    { group: 'Clients', items: clientHits },
    { group: 'Requests', items: (requests?.data ?? []).map((r) => ({ value: `/requests/${r.id}`, label: named('Request', r) })) },
    { group: 'Quotes', items: (quotes?.data ?? []).map((r) => ({ value: `/quotes/${r.id}`, label: named('Quote', r) })) },
    { group: 'Jobs', items: jobs.data.map((r) => ({ value: `/jobs/${r.id}`, label: named('Job', r) })) },
    { group: 'Invoices', items: (invoices?.data ?? []).map((r) => ({ value: `/invoices/${r.id}`, label: named('Invoice', r) })) },
  ];
  return groups.filter((g) => g.items.length > 0);
}

export function HeaderSearch({ role }: { role: Role }) {
  const [typed, setTyped] = useState('');
  const [search] = useDebouncedValue(typed.trim(), 250);
  const navigate = useNavigate();
  const office = isOffice(role);
  const results = useQuery({
    queryKey: ['search', search, office],
    queryFn: () => searchAll(search, office),
    enabled: search.length >= 2,
    staleTime: 10_000,
  });
  // Until first focused, a plain input that looks and is named the same: the combobox's
  // popover is mounted on first use (OnFirstUse), whose input then takes the focus.
  return (
    <div role="search" style={SEARCH_BOX}>
      <OnFirstUse<HTMLInputElement>
        then="focus"
        idle={(use) => <TextInput aria-label="Search" placeholder="Search" role="combobox" aria-expanded={false} aria-autocomplete="list" rightSection={<span aria-hidden="true" />} onFocus={use} />}
        active={(target) => (
          <ComboSelect
            ref={target}
            aria-label="Search"
            placeholder="Search"
            searchable
            clearable={false}
            value={null}
            searchValue={typed}
            onSearchChange={setTyped}
            data={search.length >= 2 ? (results.data ?? []) : []}
            // The server has filtered already: show every hit it sent.
            filter={({ options }) => options}
            nothingFoundMessage={search.length >= 2 && results.isSuccess ? 'Nothing found' : undefined}
            onChange={(to) => {
              if (!to) return;
              setTyped('');
              navigate(to);
            }}
            // Not kept mounted while closed: Mantine otherwise positions the hidden list as
            // the header draws, a layout and a second, synchronous render of the header.
            comboboxProps={{ width: 'target', withinPortal: true, keepMounted: false }}
            rightSection={<span aria-hidden="true" />}
          />
        )}
      />
    </div>
  );
}
