// Builds the package for use outside this repository's tsx: dist/*.js (ES modules,
// no `node:` imports, so browsers and bundlers load them too) and dist/*.d.ts.
// Run by `prepare`, so `npm install` / `npm ci` of the repository and `npm pack` of
// the package build it. Declarations need TypeScript (a devDependency of the
// repository); an install without dev dependencies gets the JavaScript alone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { transform } from 'esbuild';

const here = import.meta.dirname;
const src = path.join(here, 'src');
const tmp = path.join(here, `dist.tmp-${process.pid}`);
const out = path.join(here, 'dist');
fs.rmSync(tmp, { recursive: true, force: true });
fs.mkdirSync(tmp);

for (const name of fs.readdirSync(src)) {
  const from = path.join(src, name);
  if (name.endsWith('.d.ts')) {
    fs.copyFileSync(from, path.join(tmp, name)); // the generated types, as they are
  } else if (name.endsWith('.ts')) {
    const { code } = await transform(fs.readFileSync(from, 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: from });
    fs.writeFileSync(path.join(tmp, name.replace(/\.ts$/, '.js')), code.replace(/((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g, '$1$2.js$3'));
  }
}

let tsc = null;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('@fieldwork/client: typescript is not installed: built without .d.ts files\n');
}
if (tsc) {
  execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.build.json'), '--outDir', tmp], { stdio: 'inherit' });
  // Declarations keep the sources' `./x.ts` and `./schema.d.ts`; a consumer resolves `./x.js`.
  for (const name of fs.readdirSync(tmp).filter((n) => n.endsWith('.d.ts'))) {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/(from\s*["'])(\.{1,2}\/[^"']+?)(?:\.d)?\.ts(["'])/g, '$1$2.js$3'));
  }
}

fs.rmSync(out, { recursive: true, force: true });
fs.renameSync(tmp, out);
