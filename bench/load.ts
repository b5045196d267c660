// One load generator for every bench script: wrk when it is installed (it costs
// the server far less CPU on a 2-core machine), autocannon otherwise.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface Load {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Each request takes the next of these paths, each once at most (one-shot work such as accepting a quote). */
  paths?: string[];
  connections?: number;
  seconds?: number;
  /** A header sent with a fresh value on every request (e.g. `Idempotency-Key`). */
  uniqueHeader?: string;
}

export interface LoadResult {
  rps: number;
  p99: number;
  /** Non-2xx answers, socket errors and time-outs. */
  bad: number;
  tool: 'wrk' | 'autocannon';
}

const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version exits 1 after printing its version.
    return (err as { status?: number }).status === 1;
  }
})();

export const loadTool = process.env.BENCH_TOOL === 'autocannon' || !hasWrk ? 'autocannon' : 'wrk';

export function load(o: Load): Promise<LoadResult> {
  return loadTool === 'wrk' ? wrk(o) : cannon(o);
}

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal here (no \u escapes in our bodies)

async function wrk(o: Load): Promise<LoadResult> {
  const u = new URL(o.url);
  const lines = [`wrk.method = ${lua(o.method ?? 'GET')}`];
  for (const [k, v] of Object.entries(o.headers ?? {})) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`);
  if (o.body) lines.push(`wrk.body = ${lua(o.body)}`);
  if (o.paths) {
    // One-shot paths: each is sent once; after the last, requests go to a path that answers 404 and are not counted as work.
    lines.push(`local paths = {${o.paths.map(lua).join(',')}}`, 'local i = 0');
    lines.push('request = function() i = i + 1; local p = paths[i]; if p == nil then p = "/none" end; return wrk.format(nil, p) end');
  }
  if (o.uniqueHeader) {
    // A run-unique prefix and a counter: no two requests (nor two runs) share a value.
    const prefix = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-`;
    lines.push('local n = 0', `request = function() n = n + 1; wrk.headers[${lua(o.uniqueHeader)}] = ${lua(prefix)} .. n; return wrk.format() end`);
  }
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-')), 'load.lua');
  fs.writeFileSync(script, lines.join('\n'));
  const args = ['-t1', `-c${o.connections ?? 32}`, `-d${o.seconds ?? 5}s`, '--latency', '-s', script, u.toString()];
  const out = await new Promise<string>((resolve, reject) =>
    execFile('wrk', args, { maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : Number.NaN;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = errs ? errs.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  // With one-shot paths, only the requests that had a path did work.
  const worked = o.paths ? Math.min(total, o.paths.length) : total;
  const bad = o.paths ? Math.max(0, non2xx - (total - worked)) : non2xx + socketErrors;
  return { rps: o.paths ? (rps * worked) / Math.max(total, 1) : rps, p99: Math.round(p99ms * 100) / 100, bad, tool: 'wrk' };
}

async function cannon(o: Load): Promise<LoadResult> {
  let next = 0;
  const prefix = `bench-${Date.now().toString(36)}-`;
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    body: o.body,
    headers: o.headers,
    connections: o.connections ?? 32,
    duration: o.seconds ?? 5,
    ...(o.paths && {
      amount: o.paths.length,
      requests: [{ method: o.method, body: o.body, setupRequest: (req: object) => ({ ...req, path: o.paths![next++ % o.paths!.length] }) }],
    }),
    ...(o.uniqueHeader && {
      requests: [
        {
          method: o.method,
          body: o.body,
          setupRequest: (req: object) => ({ ...req, headers: { ...o.headers, [o.uniqueHeader!]: `${prefix}${next++}` } }),
        },
      ],
    }),
  });
  return { rps: r.requests.average, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts, tool: 'autocannon' };
}
