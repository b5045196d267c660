import { type CSSVariablesResolver, createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { setCsrfToken } from '../lib/api.ts';
import { createQueryClient } from '../lib/query.ts';
import { ME_KEY } from '../lib/session.ts';
import { whenSignInNeeded } from '../lib/write-queue.ts';

// Colours chosen for WCAG AA contrast on white (axe: color-contrast). No asterisk
// after required fields' labels: the label is then exactly its name ("Password"),
// for people and for tests that find fields by label; `required` still says it.
const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 8,
  defaultRadius: 'sm',
  components: {
    InputWrapper: { defaultProps: { withAsterisk: false } },
    // A spinner's aria-label needs a role to be read (axe: aria-prohibited-attr): a status.
    Loader: { defaultProps: { role: 'status' } },
  },
});

// Mantine's dimmed grey (descriptions, secondary text) is below 4.5:1 on white: one shade darker.
// So is its error red (a field's error and an invalid field's text, 4.1:1): red 9 is 5.1:1.
const resolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => {
    const signIn = () => {
      setCsrfToken(null);
      client.setQueryData(ME_KEY, null); // RequireSession then sends the person to sign in
    };
    whenSignInNeeded(signIn); // a waiting write answered 401: sent once signed in again
    return createQueryClient(signIn);
  });
  return (
    <QueryClientProvider client={client}>
      <MantineProvider theme={theme} cssVariablesResolver={resolver}>
        <Notifications position="top-right" />
        {children}
      </MantineProvider>
    </QueryClientProvider>
  );
}
