// "Export" (A11): the whole workspace as a ZIP. "Export workspace" asks the API for
// one, the page follows it while the worker writes it, then links "Download export".
import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApiAction } from '../../components/api-action.tsx';
import { Page } from '../../components/page.tsx';
import { ApiFailure, api, unwrap } from '../../lib/api.ts';

const formatBytes = (n: number) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

export default function ExportPage() {
  const [exportId, setExportId] = useState<number | null>(null);
  const start = useApiAction({
    run: (_: void, { idempotencyKey }) => unwrap(api.POST('/api/v1/exports', { headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (started) => setExportId(started.data.id),
  });
  const current = useQuery({
    queryKey: ['exports', exportId],
    enabled: exportId !== null,
    queryFn: async () => (await unwrap(api.GET('/api/v1/exports/{id}', { params: { path: { id: exportId ?? 0 } } }))).data,
    // The worker writes the ZIP: follow it until it is done.
    refetchInterval: (q) => (q.state.data?.status === 'done' || q.state.data?.status === 'failed' ? false : 1000),
  });
  const shown = current.data?.id === exportId ? current.data : undefined;
  const working = start.pending || (shown !== undefined && shown.status !== 'done' && shown.status !== 'failed');
  return (
    <Page title="Export">
      <Stack gap="md" maw={640}>
        <Text size="sm">
          Everything in the workspace as one ZIP file: a JSON file per kind of record (clients, jobs, invoices and the rest), and the uploaded files. The download link works for an hour.
        </Text>
        <Group>
          <Button loading={working} onClick={() => start.run()}>
            Export workspace
          </Button>
        </Group>
        {start.error && (
          <Text c="red.8" role="alert">
            {start.error instanceof ApiFailure ? start.error.explained() : 'Could not reach the server. Try again.'}
          </Text>
        )}
        <Stack gap="xs" aria-live="polite">
          {working && exportId !== null && <Text>Preparing the export…</Text>}
          {shown?.status === 'failed' && (
            <Text c="red.8" role="alert">
              The export failed: {shown.failure ?? 'unknown reason'}.
            </Text>
          )}
          {shown?.status === 'done' && shown.download_url && (
            <Text>
              <Anchor href={shown.download_url} download>
                Download export
              </Anchor>
              {shown.bytes !== null && ` (ZIP, ${formatBytes(shown.bytes)})`}
            </Text>
          )}
        </Stack>
      </Stack>
    </Page>
  );
}
