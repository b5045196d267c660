import type { components } from '@fieldwork/client';
import { Button } from '@mantine/core';
import { Link } from 'react-router';
import { DataList, pageQuery } from '../../components/data-list.tsx';
import { Page } from '../../components/page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatInstantDate, statusLabel } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';

const TYPES = ['customer', 'lead', 'former_customer', 'contractor', 'partner', 'vendor', 'other'] as const;
type ContactType = (typeof TYPES)[number];
const isType = (v: string | undefined): v is ContactType => TYPES.some((t) => t === v);

export function ClientsList() {
  const ws = useMe().workspace;
  return (
    <Page
      title="Clients"
      actions={
        <Button component={Link} to="/clients/new">
          New client
        </Button>
      }
    >
      <DataList<components['schemas']['ContactListItem']>
        queryKey="contacts"
        caption="Clients"
        searchLabel="Search clients"
        tabs={[{ value: '', label: 'All' }, ...TYPES.map((t) => ({ value: t, label: statusLabel(t) }))]}
        defaultSort={{ by: 'created_at', direction: 'desc' }}
        rowKey={(c) => c.id}
        rowLink={(c) => `/clients/${c.id}`}
        columns={[
          { key: 'first_name', label: 'Name', sortable: true, render: (c) => fullName(c) },
          { key: 'company', label: 'Company', wide: true, render: (c) => c.company ?? '' },
          { key: 'email', label: 'Email', wide: true, render: (c) => c.email ?? '' },
          { key: 'type', label: 'Type', render: (c) => statusLabel(c.type) },
          { key: 'created_at', label: 'Created', sortable: true, wide: true, render: (c) => formatInstantDate(c.created_at, ws.timezone) },
          { key: 'updated_at', label: 'Updated', sortable: true, wide: true, render: (c) => formatInstantDate(c.updated_at, ws.timezone) },
        ]}
        fetchPage={(p) =>
          unwrap(
            api.GET('/api/v1/contacts', {
              params: {
                query: {
                  ...pageQuery(p, ['first_name', 'created_at', 'updated_at'] as const),
                  ...(isType(p.tab) ? { type: p.tab } : {}),
                },
              },
            }),
          )
        }
        empty="No clients yet."
      />
    </Page>
  );
}
