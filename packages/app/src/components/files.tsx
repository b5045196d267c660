// A record's files: "Upload file" (a file picker, or drop files on the area),
// previews of images, downloads through the signed URL the API gives.
import { Anchor, Button, FileButton, Group, Image, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiFailure, api, unwrap } from '../lib/api.ts';
import { useApiAction } from '../components/api-action.tsx';

type ModuleType = 'contact' | 'request' | 'quote' | 'job' | 'invoice';

export const filesQuery = (moduleType: ModuleType, moduleId: number) =>
  queryOptions({
    queryKey: ['uploads', moduleType, moduleId],
    queryFn: () => unwrap(api.GET('/api/v1/uploads', { params: { query: { module_type: moduleType, module_id: moduleId, per_page: 100 } } })),
  });

export function Files({ moduleType, moduleId }: { moduleType: ModuleType; moduleId: number }) {
  const client = useQueryClient();
  const filesRead = filesQuery(moduleType, moduleId);
  const key = filesRead.queryKey;
  const files = useQuery(filesRead);
  const [over, setOver] = useState(false);
  const upload = useApiAction({
    run: async (list: File[], { idempotencyKey }) => {
      for (const [i, file] of list.entries()) {
        // Which file the API refused, and why (its details name the limit or the type).
        await unwrap(
          api.POST('/api/v1/uploads', {
            // The multipart body is built here: the typed body only names the fields.
            body: { file: file.name, module_type: moduleType, module_id: moduleId },
            bodySerializer: () => {
              const fd = new FormData();
              fd.set('module_type', moduleType);
              fd.set('module_id', String(moduleId));
              fd.set('file', file, file.name);
              return fd;
            },
            headers: { 'idempotency-key': `${idempotencyKey}-${i}` },
          }),
        ).catch((e: unknown) => {
          throw new Error(`${file.name}: ${e instanceof ApiFailure ? e.explained() : 'Could not reach the server. Try again.'}`);
        });
      }
    },
    onSettled: () => client.invalidateQueries({ queryKey: key }),
  });
  return (
    <Stack gap="xs">
      <Paper
        withBorder
        p="md"
        style={{ borderStyle: 'dashed', background: over ? 'var(--mantine-color-blue-0)' : undefined }}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (e.dataTransfer.files.length) upload.run([...e.dataTransfer.files]);
        }}
        data-testid="drop-zone"
      >
        <Group justify="space-between" wrap="wrap">
          <Text size="sm" c="dimmed">
            Drop files here, or
          </Text>
          <FileButton multiple onChange={(list) => list.length && upload.run(list)}>
            {(props) => (
              <Button {...props} variant="default" loading={upload.pending}>
                Upload file
              </Button>
            )}
          </FileButton>
        </Group>
        {upload.error && (
          <Text c="red" size="sm" role="alert">
            {upload.error.message}
          </Text>
        )}
      </Paper>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs">
        {(files.data?.data ?? []).map((f) => (
          <Paper key={f.link_id} withBorder p="xs">
            {f.mime_type?.startsWith('image/') && f.url && <Image src={f.url} alt={f.name ?? f.original_file_name ?? 'image'} h={100} fit="contain" />}
            <Anchor href={f.url ?? undefined} download={f.original_file_name ?? undefined} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {f.name ?? f.original_file_name}
            </Anchor>
          </Paper>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
