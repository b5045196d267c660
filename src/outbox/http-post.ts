import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, hostOf, isPrivateAddress, PrivateAddressError } from './url-guard.ts';

// One HTTP POST by the worker: a webhook delivery, or an SMS handed to an HTTP
// provider. Whatever the other side does (hangs, answers 500, redirects, streams
// 50 MB, resets the connection) the result is one small record and the worker
// moves on.

/** The most of a response body that is read; the rest is cut off (a 50 MB answer is never buffered). */
const MAX_BODY_BYTES = 64 * 1024;

export interface PostResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** D15: hex HMAC-SHA256 of the exact body bytes, keyed with the subscription's secret. */
export const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

/**
 * E15 `Fieldwork-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`:
 * the time is signed with the body, so a receiver can refuse a replayed delivery.
 */
export const timestampedSignature = (secret: string, unixSeconds: number, body: string) => `t=${unixSeconds},v1=${sign(secret, `${unixSeconds}.${body}`)}`;

// Keep-alive pools: a subscriber receiving many deliveries is not reconnected
// every time. A pooled socket was checked when it connected.
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
};

export function httpPost(target: string, body: string, headers: Record<string, string>, opts: PostOptions): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300, statusCode, error, durationMs: elapsed() });
    };

    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return finish(null, 'invalid URL');
    }
    // An address in the URL is connected to without any lookup: check it here.
    const host = hostOf(url);
    if (!opts.allowPrivate && net.isIP(host) && isPrivateAddress(host)) return finish(null, new PrivateAddressError(host, host).message);

    const isHttps = url.protocol === 'https:';
    const req = (isHttps ? https : http).request(url, {
      method: 'POST',
      agent: isHttps ? agents.https : agents.http,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    // One budget for the whole answer (WEBHOOK_TIMEOUT): a subscriber that hangs costs that, no more.
    deadline = setTimeout(() => req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);

    req.on('response', (res) => {
      const code = res.statusCode ?? 0;
      // Redirects are never followed (D17): the target could be anywhere.
      const error = code >= 200 && code < 300 ? null : code >= 300 && code < 400 ? `HTTP ${code}: redirects are not followed` : `HTTP ${code}`;
      finish(code, error);
      // Read (and drop) a little of the body so the socket can be reused; a longer or
      // slower one loses its connection instead.
      let seen = 0;
      const cutoff = setTimeout(() => res.destroy(), opts.timeoutMs);
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_BODY_BYTES) res.destroy();
      });
      res.on('close', () => clearTimeout(cutoff));
      res.on('error', () => {});
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(null, describe(err)));
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  if (err instanceof AggregateError && err.errors.length) return describe(err.errors[0] as NodeJS.ErrnoException);
  return (err.message || err.code || 'request failed').slice(0, 500);
}
