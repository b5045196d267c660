#!/usr/bin/env node
// The `fieldwork` command runs from the same JavaScript as `npm start` (dist/, built
// by scripts/build.mjs when missing or stale; the CLI bundled into one file there):
// no TypeScript compiled at each run.
import { buildServer } from '../scripts/build.mjs';

await buildServer();
const { main } = await import('../dist/cli.js');
process.exitCode = await main();
