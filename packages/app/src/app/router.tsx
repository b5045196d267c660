// Routes under /app. Every feature's pages load lazily (their code is fetched
// when first opened); part 2-4 features render their own sub-routes.
import { Center, Loader } from '@mantine/core';
import type { ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { NotFound } from '../components/not-found.tsx';
import { PageError } from './page-error.tsx';
import { RequireSession } from './require-session.tsx';
import { Shell } from './shell.tsx';

const page = (load: () => Promise<{ default: ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const routes: RouteObject[] = [
  { path: 'sign-in', ...page(() => import('../features/auth/sign-in-page.tsx')) },
  { path: 'forgot-password', ...page(() => import('../features/auth/forgot-password-page.tsx')) },
  { path: 'reset-password/:token', ...page(() => import('../features/auth/reset-password-page.tsx')) },
  { path: 'setup/:token', ...page(() => import('../features/auth/setup-page.tsx')) },
  {
    element: <RequireSession />,
    children: [
      { path: 'workspaces', ...page(() => import('../features/auth/workspaces-page.tsx')) },
      {
        element: <Shell />,
        // One boundary for every page: a read the API refused (403) shows "You don't have access to …".
        children: [
          {
            errorElement: <PageError />,
            children: [
          { index: true, ...page(() => import('../features/home/home-page.tsx')) },
          { path: 'account', ...page(() => import('../features/account/account-page.tsx')) },
          { path: 'my-day/*', ...page(() => import('../features/my-day/index.tsx')) },
          { path: 'schedule/*', ...page(() => import('../features/schedule/index.tsx')) },
          { path: 'clients/*', ...page(() => import('../features/clients/index.tsx')) },
          { path: 'requests/*', ...page(() => import('../features/requests/index.tsx')) },
          { path: 'quotes/*', ...page(() => import('../features/quotes/index.tsx')) },
          { path: 'jobs/*', ...page(() => import('../features/jobs/index.tsx')) },
          { path: 'invoices/*', ...page(() => import('../features/invoices/index.tsx')) },
          { path: 'timesheets/*', ...page(() => import('../features/timesheets/index.tsx')) },
          { path: 'reports/*', ...page(() => import('../features/reports/index.tsx')) },
          { path: 'settings/*', ...page(() => import('../features/settings/index.tsx')) },
          { path: '*', element: <NotFound /> },
            ],
          },
        ],
      },
    ],
  },
];

/** What shows while the first page's code loads (the router's initial load of a lazy route). */
function Booting() {
  return (
    <Center h="60vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

export const createRouter = () => createBrowserRouter([{ HydrateFallback: Booting, children: routes }], { basename: '/app' });
