// The one page of a record list (A2): its title, its "New ..." link, status tabs,
// the table and its search. Clients, requests, quotes, jobs and invoices only say
// what differs: their columns, their tabs and how a page is fetched. Every list has
// "Export CSV" (A11).
import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { statusLabel } from '../lib/format.ts';
import { type Column, DataList, type ListPage as ListPageData, type ListParams } from './data-list.tsx';
import { Page } from './page.tsx';
import { fullName } from './pickers.tsx';

export interface ListPageProps<T extends { id: number }> {
  /** The page's h1, the table's caption, and (lowercase) the search box's "Search <title>". */
  title: string;
  /** The list's route ("/quotes"): each row's first column links to `<path>/<id>`. */
  path: string;
  /** Query-cache key prefix (`['quotes']` is invalidated after a write). */
  queryKey: string;
  /** "New quote", linking to `<path>/new`; absent: no such link. */
  newLabel?: string;
  /** Tabs after "All": statuses (labelled by statusLabel) or `{value, label}` pairs. */
  tabs?: readonly (string | { value: string; label: string })[];
  columns: Column<T>[];
  fetchPage: (params: ListParams) => Promise<ListPageData<T>>;
  empty: string;
  /** More buttons in the header beside "New ..." (an "Export CSV" button, for one). */
  actions?: ReactNode;
  /** A11: the API list behind "Export CSV" (default `/api/v1<path>`), and the query parameter its status-like tabs set (default `status`). */
  csvPath?: string;
  tabParam?: string;
}

/**
 * A11: "Export CSV" downloads every row of the list as the page shows it (its search,
 * sort and status tab), straight from the API (E29: not paginated), with the session's cookie.
 */
function ExportCsv({ href }: { href: string }) {
  return (
    <Button component="a" href={href} download variant="default">
      Export CSV
    </Button>
  );
}

/** The API's CSV URL for the list's current URL state (data-list.tsx's `search`, `sort`, `dir`, `tab`). */
function csvHref(csvPath: string, state: URLSearchParams, tabs: readonly string[], tabParam: string): string {
  const q = new URLSearchParams({ format: 'csv' });
  const search = state.get('search');
  if (search) q.set('search', search);
  if (state.get('sort')) q.set('sort_by', state.get('sort')!);
  if (state.get('dir')) q.set('sort_direction', state.get('dir')!);
  const tab = state.get('tab');
  if (tab && tabs.includes(tab)) q.set(tabParam, tab);
  return `${csvPath}?${q}`;
}

export function ListPage<T extends { id: number }>({ title, path, queryKey, newLabel, tabs, columns, fetchPage, empty, actions, csvPath, tabParam }: ListPageProps<T>) {
  const [state] = useSearchParams();
  const statusTabs = (tabs ?? []).filter((t): t is string => typeof t === 'string');
  const header = (
      <Group gap="sm">
        <ExportCsv href={csvHref(csvPath ?? `/api/v1${path}`, state, statusTabs, tabParam ?? 'status')} />
        {actions}
        {newLabel && (
          <Button component={Link} to={`${path}/new`}>
            {newLabel}
          </Button>
        )}
      </Group>
  );
  return (
    <Page title={title} actions={header}>
      <DataList<T>
        queryKey={queryKey}
        caption={title}
        searchLabel={`Search ${title.toLowerCase()}`}
        tabs={tabs && [{ value: '', label: 'All' }, ...tabs.map((t) => (typeof t === 'string' ? { value: t, label: statusLabel(t) } : t))]}
        defaultSort={{ by: 'created_at', direction: 'desc' }}
        rowKey={(r) => r.id}
        rowLink={(r) => `${path}/${r.id}`}
        columns={columns}
        fetchPage={fetchPage}
        empty={empty}
      />
    </Page>
  );
}

/** The tab's status when it is one of `statuses` (the API refuses others with a 400). */
export const tabStatus = <S extends string>(statuses: readonly S[], tab: string | undefined): S | undefined => statuses.find((s) => s === tab);

/** A13: a document list's "Client" column, from the items' `contact` (the list fetched with `expand: 'contact'`). */
export function clientColumn<T extends { contact?: { first_name: string; last_name: string } | null }>(): Column<T> {
  return { key: 'client', label: 'Client', render: (r) => (r.contact ? fullName(r.contact) : '') };
}
