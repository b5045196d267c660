import { hmacSha256Hex } from './hmac.ts';

/** Node's `req.headers`, a fetch `Headers`, or any object of header names (any case) to values. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How old a `Fieldwork-Signature` may be, either way (default 300 s): an older one is a replay. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (default: now). */
  now?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const utf8 = new TextEncoder();
const hmac = (secret: string, data: Uint8Array) => hmacSha256Hex(utf8.encode(secret), data);

/** Compares in time independent of where the strings differ (no early exit). */
function same(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

/**
 * True when a webhook delivery was signed with the subscription's `secret`
 * (docs/webhooks.md). Pass the raw body, before parsing it. `Fieldwork-Signature:
 * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` is checked when present,
 * and refused when older (or newer) than `toleranceSeconds`; without it, the
 * older `X-Service-Signature` (HMAC of the body alone, no replay protection).
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyOptions = {}): boolean {
  const { toleranceSeconds = 300, now = Date.now() / 1000 } = options;
  const body = typeof rawBody === 'string' ? utf8.encode(rawBody) : rawBody;
  const timestamped = header(headers, 'fieldwork-signature');
  if (timestamped !== undefined) {
    const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(timestamped.trim());
    if (!m) return false;
    if (Math.abs(now - Number(m[1])) > toleranceSeconds) return false; // stale: a replay
    const prefix = utf8.encode(`${m[1]}.`);
    const signed = new Uint8Array(prefix.length + body.length);
    signed.set(prefix);
    signed.set(body, prefix.length);
    return same(m[2], hmac(secret, signed));
  }
  const plain = header(headers, 'x-service-signature');
  return plain !== undefined && same(plain.trim().toLowerCase(), hmac(secret, body));
}
