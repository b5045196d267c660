// The service worker (vite.config.ts, Workbox) registered at /app/sw.js, scope /app/.
// An update found while a page is open waits; on the next load a waiting worker
// takes over and the page loads once more from it (F320): a page never runs
// code from two builds, and a lazy page's chunk is never missing from the cache.
export async function registerServiceWorker(): Promise<void> {
  if (!('serviceWorker' in navigator) || import.meta.env.DEV) return;
  const { Workbox } = await import('workbox-window'); // not on the first load's critical path
  const wb = new Workbox('/app/sw.js', { scope: '/app/' });
  wb.addEventListener('waiting', (event) => {
    if (!event.wasWaitingBeforeRegister) return; // found during this visit: next load
    wb.addEventListener('controlling', () => window.location.reload());
    wb.messageSkipWaiting();
  });
  await wb.register();
}
