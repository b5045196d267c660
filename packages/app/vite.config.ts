import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app lives at /app of the API's own origin (one process in production).
// `npm run dev` proxies the API to a running server (API_URL, default :3000).
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: { outDir: process.env.APP_OUT_DIR ?? 'dist', emptyOutDir: true, reportCompressedSize: true, chunkSizeWarningLimit: 800 },
  server: {
    port: 5173,
    proxy: Object.fromEntries(['/api', '/files'].map((p) => [p, { target: process.env.API_URL ?? 'http://127.0.0.1:3000', changeOrigin: false }])),
  },
});
