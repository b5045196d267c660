import type { components } from '@fieldwork/client';
import { pageQuery } from '../../components/data-list.tsx';
import { ListPage, tabStatus } from '../../components/list-page.tsx';
import { fullName } from '../../components/pickers.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatInstantDate, statusLabel } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';

const TYPES = ['customer', 'lead', 'former_customer', 'contractor', 'partner', 'vendor', 'other'] as const;

export function ClientsList() {
  const ws = useMe().workspace;
  return (
    <ListPage<components['schemas']['ContactListItem']>
      title="Clients"
      path="/clients"
      csvPath="/api/v1/contacts"
      tabParam="type"
      queryKey="contacts"
      newLabel="New client"
      tabs={TYPES}
      columns={[
        { key: 'first_name', label: 'Name', sortable: true, render: (c) => fullName(c) },
        { key: 'company', label: 'Company', wide: true, render: (c) => c.company ?? '' },
        { key: 'email', label: 'Email', wide: true, render: (c) => c.email ?? '' },
        { key: 'type', label: 'Type', render: (c) => statusLabel(c.type) },
        { key: 'created_at', label: 'Created', sortable: true, wide: true, render: (c) => formatInstantDate(c.created_at, ws.timezone) },
        { key: 'updated_at', label: 'Updated', sortable: true, wide: true, render: (c) => formatInstantDate(c.updated_at, ws.timezone) },
      ]}
      fetchPage={(p) => unwrap(api.GET('/api/v1/contacts', { params: { query: { ...pageQuery(p, ['first_name', 'created_at', 'updated_at'] as const), type: tabStatus(TYPES, p.tab) } } }))}
      empty="No clients yet."
    />
  );
}
