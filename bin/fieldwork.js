#!/usr/bin/env node
// The `fieldwork` command: runs the TypeScript CLI directly (no build step).
// The import is dynamic so tsx is registered before any .ts file loads.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
process.exitCode = await main();
