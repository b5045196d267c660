// The one list of the app (A2): a table, status tabs, sorting by column, a
// search box and pages, all kept in the URL so reload, back and shared links
// show the same list. Each list page gives its columns and how to fetch a page.
import { Anchor, Group, Pagination, Table, Tabs, Text, TextInput, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, useSearchParams } from 'react-router';

export interface ListParams {
  page: number;
  per_page: number;
  search?: string;
  sort_by?: string;
  sort_direction?: 'asc' | 'desc';
  /** The selected tab's value (e.g. a status); absent for "All". */
  tab?: string;
}

/**
 * The API's list query for a DataList's state: page, search, and `sort_by` only when
 * it is one of the endpoint's `sortable` columns (others would be a 400).
 */
export function pageQuery<S extends string>(p: ListParams, sortable: readonly S[]) {
  const sortBy = sortable.find((s) => s === p.sort_by);
  return { page: p.page, per_page: p.per_page, ...(p.search ? { search: p.search } : {}), ...(sortBy ? { sort_by: sortBy, sort_direction: p.sort_direction } : {}) };
}

export interface ListPage<T> {
  data: T[];
  // The API's pagination (SPEC) has no total count; `total` shows when a list has one.
  pagination: { page: number; per_page: number; total?: number; total_pages: number };
}

export interface Column<T> {
  /** The API's `sort_by` value when `sortable`. */
  key: string;
  label: string;
  sortable?: boolean;
  /** Hidden below the `sm` breakpoint so a phone never scrolls sideways. */
  wide?: boolean;
  render: (row: T) => ReactNode;
}

export interface DataListProps<T> {
  /** Query-cache key prefix: invalidate it after a write (`['contacts']`). */
  queryKey: string;
  /** The table's caption and the search box's label: "Clients", "Search clients". */
  caption: string;
  searchLabel: string;
  columns: Column<T>[];
  /** Status tabs; the first is usually "All" with value "". */
  tabs?: { value: string; label: string }[];
  defaultSort?: { by: string; direction: 'asc' | 'desc' };
  perPage?: number;
  fetchPage: (params: ListParams) => Promise<ListPage<T>>;
  rowKey: (row: T) => string | number;
  /** The first column links to the record's page. */
  rowLink?: (row: T) => string;
  empty?: ReactNode;
}

const ALL_TAB = '__all';

/** The list's state as the URL holds it. */
export function useListState(defaultSort?: { by: string; direction: 'asc' | 'desc' }) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const state = {
    page,
    search: params.get('search') ?? '',
    tab: params.get('tab') ?? '',
    sort_by: params.get('sort') ?? defaultSort?.by ?? '',
    sort_direction: (params.get('dir') === 'asc' || params.get('dir') === 'desc' ? params.get('dir') : (defaultSort?.direction ?? 'desc')) as 'asc' | 'desc',
  };
  const update = (changes: Partial<{ page: number; search: string; tab: string; sort: string; dir: string }>, replace = false) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v === '' || v === undefined || (k === 'page' && v === 1)) next.delete(k);
          else next.set(k, String(v));
        }
        // A new search, tab or order starts again at page 1.
        if (!('page' in changes)) next.delete('page');
        return next;
      },
      { replace },
    );
  };
  return { state, update };
}

export function DataList<T>(props: DataListProps<T>) {
  const { state, update } = useListState(props.defaultSort);
  const perPage = props.perPage ?? 25;
  const params: ListParams = {
    page: state.page,
    per_page: perPage,
    ...(state.search ? { search: state.search } : {}),
    ...(state.sort_by ? { sort_by: state.sort_by, sort_direction: state.sort_direction } : {}),
    ...(state.tab ? { tab: state.tab } : {}),
  };
  const query = useQuery({
    queryKey: [props.queryKey, 'list', params],
    queryFn: () => props.fetchPage(params),
    placeholderData: keepPreviousData,
  });

  const [typed, setTyped] = useState(state.search);
  const pushSearch = useDebouncedCallback((value: string) => update({ search: value.trim() }, true), 300);

  const sortBy = (key: string) => {
    const dir = state.sort_by === key && state.sort_direction === 'asc' ? 'desc' : 'asc';
    update({ sort: key, dir });
  };

  const rows = query.data?.data ?? [];
  const pagination = query.data?.pagination;
  // A table wider than a phone scrolls inside its own region (reachable by keyboard), never the page.
  const table = (
    <Table.ScrollContainer minWidth={0} type="native" tabIndex={0} role="region" aria-label={props.caption}>
    <Table striped highlightOnHover verticalSpacing="xs" aria-busy={query.isFetching}>
      <VisuallyHidden component="caption">{props.caption}</VisuallyHidden>
      <Table.Thead>
        <Table.Tr>
          {props.columns.map((c) => {
            const sorted = state.sort_by === c.key;
            return (
              <Table.Th
                key={c.key}
                visibleFrom={c.wide ? 'sm' : undefined}
                aria-sort={c.sortable ? (sorted ? (state.sort_direction === 'asc' ? 'ascending' : 'descending') : 'none') : undefined}
              >
                {c.sortable ? (
                  <UnstyledButton onClick={() => sortBy(c.key)} fw={600} fz="sm">
                    {c.label}
                    <span aria-hidden="true">{sorted ? (state.sort_direction === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                  </UnstyledButton>
                ) : (
                  c.label
                )}
              </Table.Th>
            );
          })}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={props.rowKey(row)}>
            {props.columns.map((c, i) => (
              <Table.Td key={c.key} visibleFrom={c.wide ? 'sm' : undefined} style={{ overflowWrap: 'anywhere' }}>
                {i === 0 && props.rowLink ? (
                  <Anchor component={Link} to={props.rowLink(row)}>
                    {c.render(row)}
                  </Anchor>
                ) : (
                  c.render(row)
                )}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
    </Table.ScrollContainer>
  );

  const content = (
    <>
      <TextInput
        type="search"
        aria-label={props.searchLabel}
        placeholder={props.searchLabel}
        value={typed}
        onChange={(e) => {
          setTyped(e.currentTarget.value);
          pushSearch(e.currentTarget.value);
        }}
        mb="sm"
        maw={420}
      />
      {query.isError ? (
        <Text c="red" role="alert">
          {query.error.message}
        </Text>
      ) : (
        table
      )}
      {query.isSuccess && rows.length === 0 && (
        <Text c="dimmed" py="md">
          {props.empty ?? 'Nothing here yet.'}
        </Text>
      )}
      {pagination && pagination.total_pages > 1 && (
        <Group justify="space-between" mt="md">
          <Text size="sm" c="dimmed">
            {pagination.total === undefined ? `Page ${state.page} of ${pagination.total_pages}` : `${pagination.total} in all`}
          </Text>
          <nav aria-label="Pages">
            <Pagination
              total={pagination.total_pages}
              value={state.page}
              onChange={(p) => update({ page: p })}
              siblings={0}
              getItemProps={(p) => ({ 'aria-label': `Page ${p}`, 'aria-current': p === state.page ? 'page' : undefined })}
              getControlProps={(control) => ({ 'aria-label': { first: 'First page', previous: 'Previous page', next: 'Next page', last: 'Last page' }[control] })}
            />
          </nav>
        </Group>
      )}
    </>
  );

  return (
    <div>
      {props.tabs ? (
        // Mantine refuses an empty tab value: "All" ('') is ALL_TAB inside the tabs.
        // The list sits in the selected tab's panel, which the tab's aria-controls names.
        <Tabs value={state.tab || ALL_TAB} onChange={(v) => update({ tab: v === ALL_TAB ? '' : (v ?? '') })}>
          <Tabs.List style={{ flexWrap: 'wrap' }} mb="sm">
            {props.tabs.map((t) => (
              <Tabs.Tab key={t.value} value={t.value || ALL_TAB}>
                {t.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value={state.tab || ALL_TAB}>{content}</Tabs.Panel>
        </Tabs>
      ) : (
        content
      )}
    </div>
  );
}
