// `npm start` and the `fieldwork` command run from JavaScript: every .ts file of src/
// (and of the folders named as arguments, e.g. bench) transpiled by esbuild into
// dist/<folder>/ (types are checked by `tsc --noEmit` in `npm test`, not here), but for
// the servers' entries, bundled in their place (bundleServers); the CLI is bundled beside
// (bundleCli). Plain JavaScript, so it needs no loader. It builds only when a source changed, into a
// fresh directory that `dist` is then switched to (scripts/fresh-build.mjs), so
// processes started at once from one checkout never delete files under each other.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './fresh-build.mjs';

const root = path.resolve(import.meta.dirname, '..');

/** Makes dist/ a build of `folders` (src plus any named); returns whether it had to build. */
export async function buildServer(folders = []) {
  const all = ['src', ...folders];
  return buildIfStale({
    sources: [...all.map((f) => path.join(root, f)), path.join(root, 'scripts/build.mjs'), path.join(root, 'scripts/fresh-build.mjs')],
    out: path.join(root, 'dist'),
    extra: all.join(','),
    build: (dir) => transpile(all, dir),
  });
}

/**
 * Packages a bundle loads from node_modules: drivers loaded through createRequire, the native better-sqlite3, pdfkit (the PDF threads'),
 * and the AWS SDK, loaded only with STORAGE_URL (F254: bundled, its 1 MB would be read by every CLI command).
 */
const OUTSIDE = ['better-sqlite3', 'better-sqlite3-napi', 'pg', 'ioredis', 'nodemailer', 'pdfkit', 'file-type', '@aws-sdk/client-s3', '@aws-sdk/lib-storage'];

/**
 * The CLI as one bundled file (dist/cli.js) from the same sources: loading its ~800
 * modules (typebox, kysely, ajv) one by one took a second; one file loads in a tenth of
 * that. Drivers the code loads through createRequire stay outside, as does the native
 * better-sqlite3; bundled CommonJS gets a `require` of its own.
 */
async function bundleCli(outDir) {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [path.join(root, 'src/cli/index.ts')],
    outfile: path.join(outDir, 'cli.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: OUTSIDE,
    banner: { js: "import { createRequire as __fieldworkRequire } from 'node:module'; const require = __fieldworkRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

/**
 * The server `npm start` runs (src/main.ts) as one file, dist/src/main.js, with what it
 * loads only when used (the metrics listener) in chunks beside it; with `bench`, the
 * bench's server (bench/server.ts) too, over the same chunks. One file of whitespace-
 * and syntax-minified code held 9-10 MB less resident memory than the same code loaded
 * as ~1,100 modules (F192): V8 keeps each module's source text, and typebox alone is
 * 373 modules. Names are not minified, so stack traces still name their functions.
 * Outside, besides the CLI's: packages that find their own files through __dirname
 * (Swagger UI's assets, pino's transports, used by Fastify) and the packages those
 * load too (@fastify/static for the app's pages, @fastify/swagger and its yaml), so
 * the process holds one copy of each.
 * A module that names files beside itself (`new URL('./views/', import.meta.url)`: the
 * hub's templates, the PDF thread's script) gets the URL its transpiled copy has in
 * dist/, since its code now runs from a file elsewhere; every output sits one folder
 * below dist/ (src/, bench/), so `../` of any output is dist/ itself.
 */
const SERVER_ENTRIES = { src: ['src/main.ts'], bench: ['bench/server.ts'] };
const SERVER_OUTSIDE = [...OUTSIDE, '@fastify/swagger', '@fastify/swagger-ui', '@fastify/static', 'pino'];
async function bundleServers(folders, outDir) {
  const { build } = await import('esbuild');
  const entries = folders.flatMap((f) => SERVER_ENTRIES[f] ?? []);
  const own = new Set(entries.map((e) => path.join(root, e)));
  const besideItself = {
    name: 'urls-beside-the-transpiled-module',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
        if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined; // packages load as esbuild loads them
        const code = await fs.promises.readFile(file, 'utf8');
        // An entry's output is where its transpiled copy would be: its import.meta is right as it is.
        if (own.has(file) || !code.includes('import.meta.')) return { contents: code, loader: 'ts' };
        const other = /import\.meta\.(dirname|filename)/.exec(code);
        if (other) throw new Error(`${path.relative(root, file)}: import.meta.${other[1]} cannot be bundled; use new URL(..., import.meta.url)`);
        const transpiled = path.relative(root, file).replace(/\.ts$/, '.js');
        return { contents: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(transpiled)}, __fieldworkDist).href`), loader: 'ts' };
      });
    },
  };
  await build({
    entryPoints: entries.map((e) => path.join(root, e)),
    outdir: outDir,
    outbase: root,
    chunkNames: 'src/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    // For bench/profile.ts, which reads a profile's frames back to their sources; Node
    // itself loads a map only with --enable-source-maps.
    sourcemap: 'linked',
    sourcesContent: false,
    external: SERVER_OUTSIDE,
    banner: {
      js: "import { createRequire as __fieldworkRequire } from 'node:module'; const require = __fieldworkRequire(import.meta.url); const __fieldworkDist = new URL('../', import.meta.url);",
    },
    plugins: [besideItself],
    logLevel: 'warning',
  });
}

async function transpile(folders, outDir) {
  // Loaded only when a build is needed: a fresh `fieldwork` command skips it.
  const { transform } = await import('esbuild');
  const cli = bundleCli(outDir);
  const bundled = new Set(folders.flatMap((f) => SERVER_ENTRIES[f] ?? []).map((e) => path.normalize(e)));
  const files = folders.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true })
      .map((f) => path.join(dir, String(f)))
      .filter((f) => !f.endsWith('.test.ts') && !bundled.has(f)),
  );
  await Promise.all(
    files.map(async (rel) => {
      const from = path.join(root, rel);
      if (!fs.statSync(from).isFile()) return;
      const to = path.join(outDir, rel.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      if (!rel.endsWith('.ts')) return fs.copyFileSync(from, to); // served as is (embed-form.js)
      const { code } = await transform(fs.readFileSync(from, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: from });
      // Relative imports name .ts files; the output names .js.
      fs.writeFileSync(to, code.replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, '$1$2.js$3'));
    }),
  );
  await Promise.all([cli, bundleServers(folders, outDir)]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildServer(process.argv.slice(2));
