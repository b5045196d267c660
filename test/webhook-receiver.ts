import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A real HTTP subscriber on 127.0.0.1 for the webhook tests. Its path decides
// how it answers: /ok 200, /fail 500, /hang never, /redirect 302 to /ok,
// /huge 200 with a 50 MB body, /slow 200 after `slowMs`.

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: {
    event: string;
    workspace_id: number;
    timestamp: string;
    data: { id: number } & Record<string, unknown>;
    meta: { webhook_id: string; delivery_attempt: number; link: string };
  };
}

export interface Receiver {
  url: (path: string) => string;
  port: number;
  received: Received[];
  /** Bytes of /huge bodies the server managed to write before the client went away. */
  hugeBytesWritten: number[];
  slowMs: number;
  close: () => Promise<void>;
}

export const HUGE_BYTES = 50 * 1024 * 1024;

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hugeBytesWritten: number[] = [];
  const state = { slowMs: 50 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      received.push({ path, headers: req.headers, raw, body: JSON.parse(raw || 'null') });
      res.on('error', () => {});
      if (path === '/ok') return res.end('ok');
      if (path === '/fail') return res.writeHead(500).end('nope');
      if (path === '/hang') return; // never answers
      if (path === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
      if (path === '/slow') return void setTimeout(() => res.end('ok'), state.slowMs);
      if (path === '/huge') return streamHuge(res, hugeBytesWritten);
      res.writeHead(404).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    port,
    received,
    hugeBytesWritten,
    get slowMs() {
      return state.slowMs;
    },
    set slowMs(ms: number) {
      state.slowMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** 50 MB in 1 MB chunks, honouring backpressure; records how much went out before the client hung up. */
function streamHuge(res: http.ServerResponse, log: number[]) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(HUGE_BYTES) });
  const chunk = Buffer.alloc(1024 * 1024, 'x');
  let written = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    log.push(written);
  };
  res.on('close', finish);
  const pump = () => {
    while (written < HUGE_BYTES && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** What a subscriber does with X-Service-Signature (D15), as the README shows. */
export function verifySignature(secret: string, raw: string, signature: string | string[] | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * What a subscriber does with Fieldwork-Signature (E15), exactly as docs/webhooks.md
 * shows: the HMAC of "<t>.<raw body>", and `t` no older than `toleranceSeconds`.
 */
export function verifyFieldworkSignature(secret: string, raw: string, header: string | string[] | undefined, nowSeconds = Date.now() / 1000, toleranceSeconds = 300): boolean {
  const m = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false; // stale: a replay
  const expected = Buffer.from(createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest('hex'));
  const given = Buffer.from(m[2]);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Polls every `every` ms until `check` is true; fails with `what` after `ms`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 10_000, every = 20): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
