// The process under load: Fieldwork over the database bench/fixture.ts seeds, started
// after the seeding so that it serves as a process started on its own would (run.ts
// starts it with `npm start`'s V8 flags). Prints one JSON line with the fixture, its
// address and a side listener's (for statement counts), then serves.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';

// The fixture runs as this file runs: built JavaScript (dist/bench) or TypeScript through tsx.
const fixture = spawn(process.execPath, [...process.execArgv.filter((a) => !a.startsWith('--inspect')), path.join(import.meta.dirname, `fixture${path.extname(import.meta.filename)}`)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const exited = new Promise<number | null>((resolve) => fixture.once('exit', resolve));
const seeded = await Promise.race([
  new Promise<string>((resolve) => readline.createInterface({ input: fixture.stdout! }).once('line', resolve)),
  exited.then((code) => Promise.reject(new Error(`bench/fixture.ts exited with ${code} before describing its data`))),
]);
const fixtureInfo = JSON.parse(seeded) as { url: string };
await exited;

// Statements the app has run: the bench reads the count before and after each
// scenario (through a side listener, outside the measured app) for round trips per request.
let statements = 0;
const side = Fastify();
side.get('/statements', async () => ({ statements }));
// Where the app's memory is (bench/run.ts prints it after each scenario): V8's heap, the
// memory outside it that V8 knows of (Buffers), and the rest of the resident set.
side.get('/memory', async () => ({ ...process.memoryUsage(), spaces: (await import('node:v8')).getHeapSpaceStatistics().map((x) => `${x.space_name.replace('_space', '')} ${Math.round(x.space_size / 2 ** 20)}/${Math.round(x.space_used_size / 2 ** 20)}`).join(' ') }));
// bench/profile.ts (BENCH_PROFILING=1): a CPU profile of the serving between /profile/start
// and /profile/stop. The inspector is only connected when asked for.
const profiling = process.env.BENCH_PROFILING === '1' || Boolean(process.env.BENCH_PROFILE);
const inspector = profiling ? new (await import('node:inspector/promises')).Session() : undefined;
if (inspector) {
  inspector.connect();
  await inspector.post('Profiler.enable');
  side.post('/profile/start', async () => {
    await inspector.post('Profiler.start');
    return { ok: true };
  });
  side.post('/profile/stop', async () => (await inspector.post('Profiler.stop')).profile);
}
const sideAddress = await side.listen({ port: 0, host: '127.0.0.1' });

const database = createDb(fixtureInfo.url, { onQuery: () => statements++, checkpointThread: true }); // as src/main.ts
// A rate limit far above what the run can reach: the limiter's own cost is measured, not its 429s.
const config = loadConfig({ ...process.env, API_RATE_LIMIT: '100000000/1m', FORM_RATE_LIMIT: '100000000/1h', HUB_RATE_LIMIT: '100000000/1m', LOG_LEVEL: 'warn' });
// Logging as `npm start` logs (pino at LOG_LEVEL=warn, a child logger per request).
const app = await buildApp({ config, database });
const appAddress = await app.listen({ port: 0, host: '127.0.0.1' });

console.log(JSON.stringify({ ...fixtureInfo, side: sideAddress, app: appAddress }));
// BENCH_PROFILE=<file>: a CPU profile of all the serving (from the first request on), written on SIGTERM.
let stopProfile = async () => {};
if (inspector && process.env.BENCH_PROFILE) {
  await inspector.post('Profiler.start');
  stopProfile = async () => {
    const { profile } = await inspector.post('Profiler.stop');
    fs.writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile));
  };
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopProfile().finally(() => process.exit(0)));
