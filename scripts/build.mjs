// `npm start` runs the server from JavaScript: every .ts file of src/ (and of the
// folders named as arguments, e.g. bench) transpiled by esbuild into dist/<folder>/
// (types are checked by `tsc --noEmit` in `npm test`, not here). Plain JavaScript,
// so it needs no loader; takes well under a second.
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const folders = ['src', ...process.argv.slice(2)];

fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
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
    const to = path.join(root, 'dist', rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (!rel.endsWith('.ts')) return fs.copyFileSync(from, to); // served as is (embed-form.js)
    const { code } = await transform(fs.readFileSync(from, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: from });
    // Relative imports name .ts files; the output names .js.
    fs.writeFileSync(to, code.replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, '$1$2.js$3'));
  }),
);
