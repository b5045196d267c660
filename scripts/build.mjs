// `npm start` and the `fieldwork` command run from JavaScript: every .ts file of src/
// (and of the folders named as arguments, e.g. bench) transpiled by esbuild into
// dist/<folder>/ (types are checked by `tsc --noEmit` in `npm test`, not here). Plain
// JavaScript, so it needs no loader. It builds only when a source changed, into a
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
    external: ['better-sqlite3', 'pg', 'ioredis', 'nodemailer', 'pdfkit', 'file-type'],
    banner: { js: "import { createRequire as __fieldworkRequire } from 'node:module'; const require = __fieldworkRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

async function transpile(folders, outDir) {
  // Loaded only when a build is needed: a fresh `fieldwork` command skips it.
  const { transform } = await import('esbuild');
  const cli = bundleCli(outDir);
  const files = folders.flatMap((dir) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true })
      .map((f) => path.join(dir, String(f)))
      .filter((f) => !f.endsWith('.test.ts')),
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
  await cli;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildServer(process.argv.slice(2));
