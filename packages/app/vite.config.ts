import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vite';

// The app lives at /app of the API's own origin (one process in production).
// `npm run dev` proxies the API to a running server (API_URL, default :3000).
export default defineConfig({
  base: '/app/',
  plugins: [
    react(),
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
  build: { outDir: process.env.APP_OUT_DIR ?? 'dist', emptyOutDir: true, reportCompressedSize: true, chunkSizeWarningLimit: 800 },
  server: {
    port: 5173,
    proxy: Object.fromEntries(['/api', '/files'].map((p) => [p, { target: process.env.API_URL ?? 'http://127.0.0.1:3000', changeOrigin: false }])),
  },
});
