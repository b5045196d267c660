// "Import" (A11): a CSV of clients or price book services. The file's header row is
// read here, so each column gets a select of the kind's fields (A203); "Preview" sends
// it as a dry run and "Import" for real, and both follow the import the worker runs
// (GET /imports/:id) to its counts and its errors by row.
import { Button, Group, Input, Progress, Radio, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { fieldOfHeader, IMPORT_FIELDS, type ImportKind } from '../../../../../src/domain/import-fields.ts';
import { useApiAction } from '../../components/api-action.tsx';
import { ComboSelect } from '../../components/combo-select.tsx';
import { Page } from '../../components/page.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';
import { csvFileHeader } from '../../lib/csv-header.ts';
import { humanMessage } from '../../lib/field-messages.ts';
import { RowsTable } from './shared/settings-table.tsx';

type Import = components['schemas']['Import'];
const SKIP = 'skip';
const KINDS: { value: ImportKind; label: string }[] = [
  { value: 'clients', label: 'Clients' },
  { value: 'services', label: 'Price book' },
];
const fieldName = (field: string) => {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};
/** Each column's default: the field the API would match its header to (A203). */
const defaultMapping = (kind: ImportKind, header: string[]) => header.map((h) => fieldOfHeader(kind, h) ?? SKIP);

export default function ImportPage() {
  const client = useQueryClient();
  const fileId = useId();
  const [kind, setKind] = useState<ImportKind>('clients');
  const [file, setFile] = useState<File | null>(null);
  const [header, setHeader] = useState<string[]>([]);
  const [mapping, setMapping] = useState<string[]>([]);
  const [importId, setImportId] = useState<number | null>(null);

  const start = useApiAction({
    run: async (dryRun: boolean, { idempotencyKey }) => {
      if (!file) return undefined; // the buttons wait for a file
      // Every column's choice is sent, so what is imported is what the table shows (A203).
      const sent = Object.fromEntries(header.map((h, i) => [h, mapping[i] === SKIP ? null : mapping[i]]));
      return unwrap(
        api.POST('/api/v1/imports', {
          body: { file: file.name, kind },
          bodySerializer: () => {
            const fd = new FormData();
            fd.set('kind', kind);
            fd.set('mapping', JSON.stringify(sent));
            if (dryRun) fd.set('dry_run', 'true');
            fd.set('file', file, file.name);
            return fd;
          },
          headers: { 'idempotency-key': idempotencyKey },
        }),
      );
    },
    onSuccess: (started) => started && setImportId(started.data.id),
  });

  const current = useQuery({
    queryKey: ['imports', importId],
    enabled: importId !== null,
    queryFn: async () => (await unwrap(api.GET('/api/v1/imports/{id}', { params: { path: { id: importId ?? 0 } } }))).data,
    // The worker writes the rows: follow it until it is done.
    refetchInterval: (q) => (finished(q.state.data) ? false : 500),
  });
  const shown = current.data?.id === importId ? current.data : undefined;
  const wrote = shown !== undefined && !shown.dry_run && finished(shown);
  useEffect(() => {
    // The lists that show what was imported (clients, the price book) are stale now.
    if (wrote) void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'imports' });
  }, [wrote, client]);

  const choose = async (next: File | null) => {
    start.reset();
    setImportId(null);
    setFile(next);
    const columns = next ? await csvFileHeader(next) : [];
    setHeader(columns);
    setMapping(defaultMapping(kind, columns));
  };
  const chooseKind = (next: ImportKind) => {
    setKind(next);
    setMapping(defaultMapping(next, header));
    setImportId(null);
  };

  const failure = start.error instanceof ApiFailure ? start.error.fieldErrors() : {};
  const fileError = failure.file;
  const otherError = start.error && !failure.file && !failure.mapping ? (start.error instanceof ApiFailure ? start.error.explained() : 'Could not reach the server. Try again.') : null;
  const running = start.pending || (shown !== undefined && !finished(shown));
  const options = [{ value: SKIP, label: 'Skip' }, ...IMPORT_FIELDS[kind].map((f) => ({ value: f, label: fieldName(f) }))];

  return (
    <Page title="Import">
      <Stack gap="md" maw={720}>
        <Text size="sm">Bring clients (with their first property) or price book services from a spreadsheet saved as CSV. A client with a known email, or a service with a known name, is updated rather than added twice.</Text>
        <Radio.Group label="Kind" value={kind} onChange={(v) => chooseKind(v as ImportKind)}>
          <Group gap="lg" mt={4}>
            {KINDS.map((k) => (
              <Radio key={k.value} value={k.value} label={k.label} disabled={running} />
            ))}
          </Group>
        </Radio.Group>
        <Input.Wrapper label="File" description="A CSV file, at most 20 MB, with a header row." error={fileError} id={fileId}>
          <input
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            aria-invalid={fileError ? true : undefined}
            aria-describedby={`${fileId}-description${fileError ? ` ${fileId}-error` : ''}`}
            disabled={running}
            onChange={(e) => void choose(e.currentTarget.files?.[0] ?? null)}
            style={{ display: 'block', maxWidth: '100%', marginTop: 4 }}
          />
        </Input.Wrapper>
        {header.length > 0 && (
          <Stack gap="xs">
            <Text component="h2" fw={600}>
              Columns
            </Text>
            <Text size="sm" c="dimmed">
              What each column of the file fills. Columns set to Skip are left out.
            </Text>
            {failure.mapping && (
              <Text c="red.8" size="sm" role="alert">
                {failure.mapping}
              </Text>
            )}
            <Table>
              <VisuallyHidden component="caption">Columns of the file</VisuallyHidden>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Column</Table.Th>
                  <Table.Th>Field</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {header.map((h, i) => (
                  // A header may repeat: its position is its identity.
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                  <Table.Tr key={i}>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{h || <Text c="dimmed">(no header)</Text>}</Table.Td>
                    <Table.Td>
                      <ComboSelect
                        aria-label={`Map column ${h}`}
                        data={options}
                        value={mapping[i] ?? SKIP}
                        allowDeselect={false}
                        disabled={running}
                        onChange={(v) => setMapping((m) => m.map((x, j) => (j === i ? (v ?? SKIP) : x)))}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )}
        {otherError && (
          <Text c="red.8" role="alert">
            {otherError}
          </Text>
        )}
        <Group>
          <Button variant="default" loading={start.pending && start.variables === true} disabled={!file || running} onClick={() => start.run(true)}>
            Preview
          </Button>
          <Button loading={start.pending && start.variables === false} disabled={!file || running} onClick={() => start.run(false)}>
            Import
          </Button>
        </Group>
        {shown && <ImportState imp={shown} />}
      </Stack>
    </Page>
  );
}

const finished = (imp: Import | undefined) => imp?.status === 'done' || imp?.status === 'failed';

function ImportState({ imp }: { imp: Import }) {
  const percent = imp.rows > 0 ? Math.round((imp.processed / imp.rows) * 100) : imp.status === 'done' ? 100 : 0;
  const title = imp.dry_run ? 'Preview' : 'Result';
  return (
    <Stack gap="xs" aria-live="polite">
      <Text component="h2" fw={600}>
        {finished(imp) ? title : imp.dry_run ? 'Checking the rows…' : 'Importing…'}
      </Text>
      {!imp.dry_run && (
        <Stack gap={4}>
          <Progress.Root size="lg">
            <Progress.Section value={percent} aria-label="Import progress" />
          </Progress.Root>
          <Text size="sm">
            {imp.processed} of {imp.rows} rows
          </Text>
        </Stack>
      )}
      {imp.status === 'failed' && (
        <Text c="red.8" role="alert">
          The import stopped: {imp.failure ?? 'unknown reason'}.
        </Text>
      )}
      {finished(imp) && (
        <>
          {imp.dry_run && <Text size="sm">Nothing is written yet: this is what Import would do.</Text>}
          <Group gap="lg" component="dl" style={{ margin: 0 }}>
            <Count label={imp.dry_run ? 'Would create' : 'Created'} value={imp.created} />
            <Count label={imp.dry_run ? 'Would update' : 'Updated'} value={imp.updated} />
            <Count label={imp.dry_run ? 'Would skip' : 'Skipped'} value={imp.skipped} />
          </Group>
          {imp.errors.length > 0 && (
            <>
              <Text component="h3" fw={600} size="sm">
                Rows with errors
              </Text>
              <RowsTable
                caption="Rows with errors"
                rows={imp.errors}
                rowKey={(e) => `${e.row}-${e.field}`}
                columns={[
                  { header: 'Row', cell: (e) => e.row },
                  { header: 'Field', cell: (e) => (e.field === 'row' ? '—' : fieldName(e.field)) },
                  { header: 'Message', cell: (e) => humanMessage(e.field === 'row' ? '' : e.field, e.message) },
                ]}
              />
            </>
          )}
        </>
      )}
    </Stack>
  );
}

function Count({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <Text component="dt" size="sm" c="dimmed">
        {label}
      </Text>
      <Text component="dd" fw={600} m={0} data-count={label}>
        {value}
      </Text>
    </div>
  );
}
