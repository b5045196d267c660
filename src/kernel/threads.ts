import v8 from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the JavaScript thread of `script` (scriptBeside: `.js` in dist/ under `npm
 * start`, `.ts` under tsx in tests and the CLI, where the thread registers
 * tsx's loader first, since a worker does not inherit a loader registered at run time)
 * with a young generation of `youngGenerationMb`. V8 takes --max-semi-space-size (`npm
 * start` gives 4 MB for the main thread, F167) over a thread's resourceLimits, and reads
 * it only when a heap is made: it is cleared first, so the main thread keeps the flag's
 * and the new thread gets its own (F189). Its user: the process's side threads
 * (side-threads.ts, F201), which run the PDFs and SQLite's checkpoints.
 */
/** The script `name` beside the module at `base` (its import.meta.url): `.ts` under tsx, `.js` in dist/. */
export const scriptBeside = (base: string, name: string): URL => new URL(`./${name}.${base.endsWith('.ts') ? 'ts' : 'js'}`, base);

export function startThread(script: URL, youngGenerationMb: number, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  v8.setFlagsFromString('--max-semi-space-size=0');
  const resourceLimits = { maxYoungGenerationSizeMb: youngGenerationMb, ...options.resourceLimits };
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { ...options, resourceLimits });
  const loader = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${loader}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`, { ...options, eval: true, resourceLimits });
}
