// The shell of every signed-in page (A2): header (Menu on phones, Search,
// Account), the Main navigation per role, and the page's own content.
import { AppShell, Burger, Button, Group, Menu, NavLink, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useSyncExternalStore } from 'react';
import './shell.css';
import { Link, NavLink as RouterNavLink, Outlet, useLocation } from 'react-router';
import { OnFirstUse } from '../components/on-first-use.tsx';
import { UnsavedChangesGuard } from '../components/unsaved-changes.tsx';
import { api, unwrap } from '../lib/api.ts';
import { useMe, useResetSession } from '../lib/session.ts';
import { navFor } from './navigation.ts';

// The search box's combobox code is not needed for the first paint: fetched after it, its
// space kept meanwhile (SEARCH_BOX) so the header does not shift.
const HeaderSearch = lazy(() => import('./search.tsx').then((m) => ({ default: m.HeaderSearch })));
import { NotificationsButton } from './notifications.tsx';
import { SEARCH_BOX } from './search-box.ts';

// blue.9: while the menu is open the button keeps its hover background, where Mantine's subtle text fell below 4.5:1.
const ACCOUNT_BUTTON = { variant: 'subtle', px: 'xs', c: 'blue.9' } as const;

// Mantine's `sm`: below it the navbar is collapsed behind "Menu" (shell.css hides it).
const WIDE = '(min-width: 48em)';
const onWidthChange = (notify: () => void) => {
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', notify);
  return () => query.removeEventListener('change', notify);
};
const isWide = () => window.matchMedia(WIDE).matches;

export function Shell() {
  const me = useMe();
  const [opened, { toggle, close }] = useDisclosure(false);
  // A phone's collapsed navigation is hidden: its links are drawn once it opens, not in
  // every page's first commit.
  const wide = useSyncExternalStore(onWidthChange, isWide);
  const location = useLocation();
  const reset = useResetSession();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/sign-out')),
    onSettled: async () => {
      await reset(null); // RequireSession then sends this page to sign-in
    },
  });

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 210, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="sm" gap="xs" wrap="nowrap" justify="space-between">
          <Group gap="xs" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" aria-expanded={opened} />
            <Text component={Link} to="/" fw={700} c="blue.8" visibleFrom="xs" style={{ textDecoration: 'none' }}>
              Fieldwork
            </Text>
          </Group>
          <Suspense fallback={<div style={SEARCH_BOX} />}>
            <HeaderSearch role={me.user.role} />
          </Suspense>
          <Group gap={0} wrap="nowrap">
          <NotificationsButton />
          <OnFirstUse<HTMLButtonElement>
            idle={(use) => (
              <Button {...ACCOUNT_BUTTON} aria-haspopup="menu" aria-expanded={false} onClick={use}>
                Account
              </Button>
            )}
            active={(target) => (
              // No focus placeholder: a focusable child without a role inside role="menu" fails axe (aria-required-children); focus goes to the first item.
              <Menu position="bottom-end" withinPortal withInitialFocusPlaceholder={false}>
                <Menu.Target>
                  <Button {...ACCOUNT_BUTTON} ref={target}>
                    Account
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>
                    {me.user.first_name} {me.user.last_name} · {me.workspace.name}
                  </Menu.Label>
                  <Menu.Item component={Link} to="/account">
                    Account settings
                  </Menu.Item>
                  {me.workspaces.length > 1 && (
                    <Menu.Item component={Link} to="/workspaces">
                      Switch workspace
                    </Menu.Item>
                  )}
                  <Menu.Item onClick={() => signOut.mutate()}>Sign out</Menu.Item>
                </Menu.Dropdown>
              </Menu>
            )}
          />
          </Group>
        </Group>
      </AppShell.Header>
      {/* Collapsed on a phone, the navigation is hidden from keyboards and screen readers too (shell.css). */}
      <AppShell.Navbar p="xs" aria-label="Main" className="fw-navbar" data-open={opened || undefined}>
        {(wide || opened) &&
          navFor(me.user.role).map((l) => (
            <NavLink
              key={l.to}
              component={RouterNavLink}
              to={l.to}
              end={l.to === '/'}
              label={l.label}
              variant="filled"
              active={l.to === '/' ? location.pathname === '/' : location.pathname.startsWith(l.to)}
              onClick={close}
            />
          ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <UnsavedChangesGuard />
        <div style={{ maxWidth: 1200 }}>
          <Suspense fallback={<Text c="dimmed">Loading…</Text>}>
            <Outlet />
          </Suspense>
        </div>
      </AppShell.Main>
    </AppShell>
  );
}
