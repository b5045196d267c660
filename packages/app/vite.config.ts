import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig, type Plugin, type Rollup } from 'vite';

/**
 * route-preloads.json, which the server names in each page's Link header (F340): the
 * entry script and its stylesheets, which every page needs first, and for each page the
 * router loads lazily, keyed by its first path segment under /app, the script files it
 * needs beyond the entry's. The browser then fetches a page's code with the entry script
 * instead of after it. A page module is `features/<x>/index.tsx` (route `<x>/*`) or
 * `features/<folder>/<x>-page.tsx` (route `<x>`; Home's `home` is the index route).
 */
function routePreloads(): Plugin {
  return {
    name: 'fieldwork-route-preloads',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const withImports = (files: string[], seen = new Set<string>()): Set<string> => {
        for (const f of files) {
          if (seen.has(f)) continue;
          seen.add(f);
          withImports(byFile.get(f)?.imports ?? [], seen);
        }
        return seen;
      };
      const entry = chunks.find((c) => c.isEntry);
      if (!entry) return;
      const loaded = withImports([entry.fileName]);
      const pages: Record<string, string[]> = {};
      for (const chunk of chunks) {
        // The modules the router loads lazily; a chunk may hold several (small chunks are merged).
        for (const id of chunk.moduleIds) {
          if (!this.getModuleInfo(id)?.dynamicImporters.some((by) => by.endsWith('/src/app/router.tsx'))) continue;
          const page = /\/src\/features\/([^/]+)\/(?:index|([^/]+)-page)\.tsx$/.exec(id);
          if (page && !loaded.has(chunk.fileName)) pages[page[2] ?? page[1]] = [...withImports([chunk.fileName])].filter((f) => !loaded.has(f));
        }
      }
      const preloads = { entry: { script: entry.fileName, styles: [...(entry.viteMetadata?.importedCss ?? [])] }, pages };
      this.emitFile({ type: 'asset', fileName: 'route-preloads.json', source: `${JSON.stringify(preloads, null, 1)}\n` });
    },
  };
}

/**
 * Mantine's useId (@mantine/hooks) returns React's id in the first render, then sets a
 * random one in a layout effect: a synchronous second render, inside the commit, of every
 * component that names its parts (the shell, each field's wrapper, each popover) as it
 * mounts. Random ids were for React before 18, which had no useId; React's own is unique
 * and stable, so this build keeps it. (The dev server's pre-bundled Mantine keeps Mantine's.)
 */
function mantineReactIds(): Plugin {
  return {
    name: 'fieldwork-mantine-react-ids',
    apply: 'build',
    load(id) {
      if (!id.replaceAll('\\', '/').endsWith('/@mantine/hooks/esm/use-id/use-id.mjs')) return null;
      return `import { useId as useReactId } from 'react';
export function useId(staticId) {
  const id = 'mantine-' + useReactId().replace(/[^A-Za-z0-9_-]/g, '');
  return typeof staticId === 'string' ? staticId : id;
}
`;
    },
  };
}

// The app lives at /app of the API's own origin (one process in production).
// `npm run dev` proxies the API to a running server (API_URL, default :3000).
export default defineConfig({
  base: '/app/',
  plugins: [
    react({ babel: { plugins: [['babel-plugin-react-compiler', { target: '19' }]] } }),
    routePreloads(),
    mantineReactIds(),
    // A12: installable, and the whole app precached by Workbox's service worker (F320), so
    // My day opens with no network. A new worker waits and takes over on the next load
    // (src/app/service-worker.ts): an open page keeps the code it started with.
    VitePWA({
      strategies: 'generateSW',
      registerType: 'prompt',
      injectRegister: false,
      filename: 'sw.js',
      manifestFilename: 'manifest.webmanifest',
      includeAssets: ['apple-touch-icon.png'],
      manifest: {
        id: '/app/',
        name: 'Fieldwork',
        short_name: 'Fieldwork',
        description: 'Requests, quotes, jobs, invoices, the schedule and the crew’s day of a field-service business.',
        start_url: '/app/',
        scope: '/app/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#1864ab',
        icons: [
          { src: 'icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,png,webmanifest}'],
        // Every page of the app is its one HTML; the API and files are never answered from the cache.
        navigateFallback: '/app/index.html',
        navigateFallbackAllowlist: [/^\/app(\/|$)/],
        cleanupOutdatedCaches: true,
        // The first install controls the page it was registered from, so that page reloads offline; updates still wait.
        clientsClaim: true,
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
      },
    }),
  ],
  build: {
    outDir: process.env.APP_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 800,
    // Rollup otherwise makes a chunk of every set of modules two pages share (a Mantine
    // component, a helper): a quote's page fetched 28 files, which HTTP/1.1's six
    // connections per origin take in five round trips. Chunks under 20 KB are merged.
    rollupOptions: { output: { experimentalMinChunkSize: 20_000 } },
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(['/api', '/files'].map((p) => [p, { target: process.env.API_URL ?? 'http://127.0.0.1:3000', changeOrigin: false }])),
  },
});
