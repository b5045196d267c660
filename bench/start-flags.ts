// The V8 flags `npm start` gives the API (package.json's start script, F167/F170), so a
// bench measures the process as it is started in production. BENCH_NODE_FLAGS adds
// flags, to compare (e.g. a heap limit) against the start script's.
import fs from 'node:fs';
import path from 'node:path';

export function startFlags(): string[] {
  const root = path.resolve(import.meta.dirname, '..');
  const script = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const flags = (/node ((?:--\S+ )*)dist\/src\/main\.js/.exec(script)?.[1] ?? '').split(' ').filter(Boolean);
  if (flags.length === 0) throw new Error('package.json start script: no `node [flags] dist/src/main.js` to read the flags from');
  return [...flags, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
}
