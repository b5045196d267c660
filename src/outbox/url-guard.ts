import dns from 'node:dns';
import net from 'node:net';

// D17 and WEBHOOK_ALLOW_PRIVATE_URLS: a subscriber URL must never make the
// service call into its own network. The address is checked when the URL is
// subscribed and again when the connection is made (a name can be re-pointed
// after subscribing), in the `lookup` the socket itself uses.

type V4Range = [base: number, bits: number];
type V6Range = [words: number[], bits: number];

const v4 = (cidr: string): V4Range => {
  const [ip, bits] = cidr.split('/');
  return [v4ToInt(ip)!, Number(bits)];
};
const v6 = (cidr: string): V6Range => {
  const [ip, bits] = cidr.split('/');
  return [v6Words(ip)!, Number(bits)];
};

// Loopback, private, link-local and unspecified (D17), plus the other
// ranges that never lead to a public subscriber: shared CGNAT space, IETF
// protocol assignments, benchmarking, multicast, reserved and broadcast.
const PRIVATE_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(v4);

// Unspecified, loopback, link-local, ULA, old site-local, multicast.
const PRIVATE_V6 = ['::/128', '::1/128', 'fe80::/10', 'fc00::/7', 'fec0::/10', 'ff00::/8'].map(v6);

// IPv6 forms that carry an IPv4 address, which is what decides: IPv4-mapped
// (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), IPv4-compatible (::a.b.c.d) in
// the low 32 bits; 6to4 (2002:AABB:CCDD::) in bits 16-47.
const EMBEDS_V4_LOW = ['::ffff:0:0/96', '64:ff9b::/96', '::/96'].map(v6);
const SIX_TO_FOUR = v6('2002::/16');

function v4ToInt(ip: string): number | null {
  if (!net.isIPv4(ip)) return null;
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** '::ffff:127.0.0.1' -> eight 16-bit words. */
function v6Words(ip: string): number[] | null {
  if (!net.isIPv6(ip)) return null;
  let text = ip.replace(/%.*$/, ''); // zone id
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToInt(dotted[1])!;
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((w) => Number.parseInt(w, 16)) : []);
  const a = parse(head);
  const b = parse(tail);
  const words = tail === undefined ? a : [...a, ...new Array<number>(8 - a.length - b.length).fill(0), ...b];
  return words.length === 8 ? words : null;
}

const inV4 = (n: number, [base, bits]: V4Range) => bits === 0 || n >>> (32 - bits) === base >>> (32 - bits);

function inV6(words: number[], [base, bits]: V6Range): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((words[i] & mask) !== (base[i] & mask)) return false;
  }
  return true;
}

const wordsToV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** True for any address a webhook must not reach unless private URLs are allowed. */
export function isPrivateAddress(ip: string): boolean {
  const n = v4ToInt(ip);
  if (n !== null) return PRIVATE_V4.some((r) => inV4(n, r));
  const words = v6Words(ip);
  if (!words) return true; // not an address at all: refuse rather than guess
  if (PRIVATE_V6.some((r) => inV6(words, r))) return true;
  if (EMBEDS_V4_LOW.some((r) => inV6(words, r))) return isPrivateAddress(wordsToV4(words[6], words[7]));
  if (inV6(words, SIX_TO_FOUR)) return isPrivateAddress(wordsToV4(words[1], words[2]));
  return false;
}

/** An absolute http(s) URL (D17), or null. */
export function parseWebhookUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  return url;
}

/** The URL's host as an address or a name: '[::1]' -> '::1'. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** RFC 6761: `localhost` and its subdomains are loopback whatever a resolver says (`localhost.` may not resolve). */
const isLocalName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(host: string, address: string) {
    super(
      host === address
        ? `${address} is a private address (WEBHOOK_ALLOW_PRIVATE_URLS is false)`
        : `${host} resolves to a private address, ${address} (WEBHOOK_ALLOW_PRIVATE_URLS is false)`,
    );
  }
}

/**
 * The subscribe-time check: the private address the URL's host is or resolves
 * to, or null. A name that does not resolve now is let through: the
 * connect-time guard still checks whatever it resolves to later.
 */
export async function privateAddressOf(url: URL): Promise<string | null> {
  const host = hostOf(url);
  if (net.isIP(host)) return isPrivateAddress(host) ? host : null;
  if (isLocalName(host)) return '127.0.0.1';
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    return null;
  }
  return addresses.find((a) => isPrivateAddress(a.address))?.address ?? null;
}

/**
 * The connect-time check, as the socket's own `lookup`: the connection is made
 * only to addresses that were checked, so a name re-pointed at 127.0.0.1 after
 * subscribing is never called. Any private answer refuses the whole name.
 */
export const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  if (isLocalName(hostname)) return callback(new PrivateAddressError(hostname, '127.0.0.1'), []);
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
};
