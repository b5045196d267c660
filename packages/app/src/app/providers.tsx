import { type CSSVariablesResolver, createTheme, MantineProvider, type MantineColorSchemeManager } from '@mantine/core';
import { Notifications, useNotifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { setCsrfToken } from '../lib/api.ts';
import { createQueryClient } from '../lib/query.ts';
import { ME_KEY } from '../lib/session.ts';
import { pauseUntilSignedIn, whenSignInNeeded } from '../lib/write-queue.ts';

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

// The app has one colour scheme. Mantine's default manager reads it from localStorage in
// the first render and again in an effect: the origin's first storage access loads it
// synchronously, which measured ~60 ms of a phone's main thread per page load.
const LIGHT_ONLY: MantineColorSchemeManager = { get: () => 'light', set: () => {}, subscribe: () => {}, unsubscribe: () => {}, clear: () => {} };

/**
 * Mantine's toasts, mounted with the first one shown: mounting the layer re-renders it
 * synchronously several times (its portal and transition group set state as they mount),
 * ~12 ms of a phone's main thread in every load, most of which never shows a toast.
 */
function Toasts() {
  const { notifications } = useNotifications();
  const [mounted, setMounted] = useState(false);
  if (!mounted && notifications.length > 0) setMounted(true);
  return mounted ? <Notifications position="top-right" /> : null;
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(() => {
    const signIn = () => {
      pauseUntilSignedIn(); // a waiting write sent now would carry no session's token
      setCsrfToken(null);
      client.setQueryData(ME_KEY, null); // RequireSession then sends the person to sign in
    };
    whenSignInNeeded(signIn); // a waiting write answered 401: sent once signed in again
    return createQueryClient(signIn);
  });
  return (
    <QueryClientProvider client={client}>
      <MantineProvider theme={theme} cssVariablesResolver={resolver} colorSchemeManager={LIGHT_ONLY} defaultColorScheme="light">
        <Toasts />
        {children}
      </MantineProvider>
    </QueryClientProvider>
  );
}
