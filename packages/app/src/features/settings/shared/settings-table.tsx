// The shape the Price book, Tax rates, Quote templates and Custom fields pages share (A126): a
// "New ..." button that opens the page's form, a table of the rows with "Edit"
// (the same form, filled, saving with PUT) and "Delete", and the API's refusal of
// a delete as an alert. The page gives its columns and its form.
import { Button, Card, Group, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { type QueryKey, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Page } from '../../../components/page.tsx';
import { useApiAction } from '../../../components/api-action.tsx';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  visibleFrom?: 'sm';
  /** Long unbroken text (a URL, an email address) may break anywhere, not only between words. */
  breakAll?: boolean;
}

/** What the page's form gets: the row being edited (none: a new one) and what to call when done. */
export interface RowFormProps<T> {
  row: T | null;
  onDone: () => void;
}

export interface SettingsTableProps<T extends { id: number }> {
  title: string;
  /** "New tax rate": the button, and the form's heading for a new row. */
  newLabel: string;
  /** "Edit tax rate": the form's heading for a row. */
  editLabel: string;
  empty: string;
  queryKey: QueryKey;
  list: () => Promise<T[]>;
  /** Deletes a row; send `idempotencyKey` as its Idempotency-Key (A160). */
  remove: (id: number, idempotencyKey: string) => Promise<unknown>;
  columns: Column<T>[];
  Form: (props: RowFormProps<T>) => ReactNode;
  /** A form wider than a few fields (a template's line items). */
  wide?: boolean;
}

export function SettingsTable<T extends { id: number }>({ title, newLabel, editLabel, empty, queryKey, list, remove, columns, Form, wide = false }: SettingsTableProps<T>) {
  const client = useQueryClient();
  // null: no form; 'new'; or the row being edited.
  const [open, setOpen] = useState<'new' | T | null>(null);
  const rows = useQuery({ queryKey, queryFn: list });
  const deletion = useApiAction({ run: (id: number, { idempotencyKey }) => remove(id, idempotencyKey), onSettled: () => client.invalidateQueries({ queryKey }) });
  const editing = open !== null && open !== 'new' ? open : null;
  return (
    <Page title={title} actions={open === null && <Button onClick={() => setOpen('new')}>{newLabel}</Button>}>
      {open !== null && (
        <Card withBorder maw={wide ? 960 : 560}>
          <Stack gap="sm">
            <Text component="h2" fw={600}>
              {editing ? editLabel : newLabel}
            </Text>
            {/* A new form per row: its values start from that row. */}
            <Form key={editing ? editing.id : 'new'} row={editing} onDone={() => setOpen(null)} />
          </Stack>
        </Card>
      )}
      {rows.error && <Text role="alert">{rows.error.message}</Text>}
      {deletion.error && (
        <Text c="red.8" role="alert">
          {deletion.error.message}
        </Text>
      )}
      {rows.data?.length === 0 && <Text>{empty}</Text>}
      {rows.data && rows.data.length > 0 && (
        <RowsTable
          caption={title}
          rows={rows.data}
          rowKey={(row) => row.id}
          columns={columns}
          actions={(row) => (
            <Group gap="xs" wrap="nowrap">
              <Button size="xs" variant="default" onClick={() => setOpen(row)}>
                Edit
              </Button>
              <Button size="xs" variant="outline" color="red.8" loading={deletion.pending && deletion.variables === row.id} onClick={() => deletion.run(row.id)}>
                Delete
              </Button>
            </Group>
          )}
        />
      )}
    </Page>
  );
}

/** The form's buttons: its save button (named by the page, as before) and "Cancel". */
export function FormButtons({ save, pending, onCancel }: { save: string; pending: boolean; onCancel: () => void }) {
  return (
    <Group>
      <Button type="submit" loading={pending}>
        {save}
      </Button>
      <Button variant="subtle" onClick={onCancel}>
        Cancel
      </Button>
    </Group>
  );
}

export interface RowsTableProps<T> {
  /** The table's caption: hidden unless `showCaption` (the section's heading says it). */
  caption: string;
  showCaption?: boolean;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  /** The last column's buttons, under a header only screen readers hear ("Actions"). */
  actions?: (row: T) => ReactNode;
  /** Attributes of a row's `tr` (data-* for tests and styles). */
  rowProps?: (row: T) => Record<`data-${string}`, string | number>;
}

/** The table of every settings page: a caption, its columns (some hidden on a phone), a row per record and its buttons. */
export function RowsTable<T>({ caption, showCaption = false, columns, rows, rowKey, actions, rowProps }: RowsTableProps<T>) {
  return (
    <Table.ScrollContainer minWidth={0}>
      <Table>
        {showCaption ? <Table.Caption>{caption}</Table.Caption> : <VisuallyHidden component="caption">{caption}</VisuallyHidden>}
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.header} visibleFrom={c.visibleFrom}>
                {c.header}
              </Table.Th>
            ))}
            {actions && (
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((c) => (
                <Table.Td key={c.header} visibleFrom={c.visibleFrom} style={{ wordBreak: c.breakAll ? 'break-all' : 'break-word' }}>
                  {c.cell(row)}
                </Table.Td>
              ))}
              {actions && <Table.Td>{actions(row)}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
