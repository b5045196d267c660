// Builds Fieldwork Office (packages/app) with Vite into dist-app/, only when its
// sources (the app, src/domain which it imports, the client, the lockfile) changed,
// through the same stale check and atomic switch as the server's build
// (scripts/fresh-build.mjs): a start running beside this one never serves a half
// written build, and a server started earlier keeps serving its own build directory.
// `--force` builds regardless.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { buildIfStale } from './fresh-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const SOURCES = ['packages/app/src', 'packages/app/index.html', 'packages/app/public', 'packages/app/vite.config.ts', 'packages/app/package.json', 'packages/client/src', 'src/domain', 'package-lock.json', 'scripts/build-app.mjs', 'scripts/fresh-build.mjs'];

/** Brotli and gzip twins of every script and stylesheet, served as they are (@fastify/static preCompressed). */
function compressAssets(dir) {
  for (const f of fs.readdirSync(dir)) {
    if (!/\.(js|css|svg|json)$/.test(f)) continue;
    const body = fs.readFileSync(path.join(dir, f));
    fs.writeFileSync(path.join(dir, `${f}.br`), zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
    fs.writeFileSync(path.join(dir, `${f}.gz`), zlib.gzipSync(body, { level: 9 }));
  }
}

/** Makes dist-app/ a build of the app's current sources; returns whether it had to build. */
export async function buildApp({ force = false, quiet = false } = {}) {
  const started = Date.now();
  const built = await buildIfStale({
    sources: SOURCES.map((rel) => path.join(root, rel)),
    out: path.join(root, 'dist-app'),
    extra: force ? `forced ${Date.now()}` : '',
    build: async (dir) => {
      const { build } = await import('vite');
      await build({
        root: path.join(root, 'packages/app'),
        configFile: path.join(root, 'packages/app/vite.config.ts'),
        logLevel: quiet ? 'warn' : 'info',
        build: { outDir: dir, emptyOutDir: true },
      });
      compressAssets(path.join(dir, 'assets'));
    },
  });
  if (built && !quiet) console.log(`Fieldwork Office built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return built;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildApp({ force: process.argv.includes('--force') });
