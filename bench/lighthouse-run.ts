// One Lighthouse run, in a process of its own: bench/lighthouse.ts starts it for each
// run so that Lighthouse's work (receiving and reading the page's trace) never shares
// an event loop with the server it measures, whose answer times Lighthouse's simulation
// takes as observed. Reads {url, port, flags} as JSON from argv; prints the report (lhr) as JSON.
import fs from 'node:fs';
import lighthouse from 'lighthouse';

const { url, port, flags } = JSON.parse(process.argv[2] ?? '{}') as { url: string; port: number; flags: Record<string, unknown> };
// LH_TRACE=<file> keeps the run's trace (the main thread's tasks, as Lighthouse saw them) to
// read, with V8's CPU samples in it (which slow the page: a diagnosis, not a measurement).
const sampled = process.env.LH_TRACE ? { additionalTraceCategories: 'disabled-by-default-v8.cpu_profiler' } : {};
const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', ...sampled, ...flags });
if (process.env.LH_TRACE && result) fs.writeFileSync(process.env.LH_TRACE, JSON.stringify(result.artifacts.Trace.traceEvents));
process.stdout.write(JSON.stringify(result?.lhr ?? null));
