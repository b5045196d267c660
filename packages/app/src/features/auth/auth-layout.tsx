import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';

/** The signed-out pages: one card, its title the page's one h1. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Fieldwork`;
  }, [title]);
  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder p="lg" radius="md" w="100%" maw={420}>
        <Stack gap="md">
          <Text fw={700} c="blue.8">
            Fieldwork
          </Text>
          <Title order={1} size="h2">
            {title}
          </Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
