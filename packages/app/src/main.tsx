import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { Providers } from './app/providers.tsx';
import { createRouter } from './app/router.tsx';
import { registerServiceWorker } from './app/service-worker.ts';

const root = document.getElementById('root');
// The first render as a transition, which React cuts into slices the browser can
// interleave with input and painting; after a yield, so that this script's own long
// evaluation and the router's first match are separate tasks (Lighthouse's blocking time).
setTimeout(() => {
  const router = createRouter();
  if (root)
    startTransition(() =>
      createRoot(root).render(
        <StrictMode>
          <Providers>
            <RouterProvider router={router} />
          </Providers>
        </StrictMode>,
      ),
    );
});

// After the page has loaded: the worker's precache downloads every chunk, which must not
// compete with the first load's own requests.
if (document.readyState === 'complete') void registerServiceWorker();
else window.addEventListener('load', () => void registerServiceWorker(), { once: true });
