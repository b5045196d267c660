import { Stack, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';

/** A page: its one h1 (A2) and the browser tab's title. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Fieldwork`;
  }, [title]);
  return (
    <Stack gap="md">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 'var(--mantine-spacing-sm)', alignItems: 'center', justifyContent: 'space-between' }}>
        <Title order={1} size="h2">
          {title}
        </Title>
        {actions}
      </div>
      {children}
    </Stack>
  );
}

/** A page whose feature is still to come: the title and route exist so links and tests can land on it. */
export function PlaceholderPage({ title }: { title: string }) {
  return <Page title={title} />;
}
