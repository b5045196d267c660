import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

// A1 passwords: scrypt from node:crypto (memory-hard, no native build step),
// stored as `scrypt$N$r$p$<salt>$<hash>` so the cost can be raised later
// without breaking stored hashes. Compared in constant time.

const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 128 * o.N * o.r * 2 };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash no password matches: verified against when the account is unknown, so both cases cost one hash. */
const NOBODY = `scrypt$${N}$${R}$${P}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`;

/** True when `password` matches `stored`; a missing or malformed hash still costs one hash and is false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  const valid = parts.length === 6 && parts[0] === 'scrypt';
  const [, n, r, p, salt, hash] = valid ? parts : NOBODY.split('$');
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return valid && key.length === expected.length && timingSafeEqual(key, expected);
}

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/** A1: 10 to 200 characters, not the email itself. Returns the problem, or null. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'must not be your email address';
  return null;
}
