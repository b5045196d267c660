import type { Redis } from 'ioredis';
import { AppError } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';

/**
 * A1 brute force: at most MAX failed sign-ins per email and per client address
 * in WINDOW; past that, sign-in answers 429 before any password is checked. A
 * counter's window starts at its first failure. Counters live in Redis when
 * REDIS_URL is set (every instance shares them, as the API's rate limit does),
 * else in this process. A successful sign-in clears the email's counter.
 */
export interface SignInLimiter {
  /** Throws 429 (with `retryAfter`) when the email or the address is locked out. */
  check(email: string, ip: string): Promise<void>;
  failed(email: string, ip: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

export class TooManyAttempts extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too many attempts, try again later');
  }
}

// Hashed, so neither emails nor addresses sit in Redis in the clear.
const keysOf = (prefix: string) => (email: string, ip: string) => [`${prefix}:e:${hashToken(email)}`, `${prefix}:a:${hashToken(ip)}`];

/** `prefix` names the counters: sign-in's, or another action limited the same way (reset emails, A17). */
export function signInLimiter(redis: Redis | null, prefix = 'fieldwork-sign-in'): SignInLimiter {
  const counterKeys = keysOf(prefix);
  return redis ? redisLimiter(redis, counterKeys) : memoryLimiter(counterKeys);
}

type CounterKeys = ReturnType<typeof keysOf>;

function memoryLimiter(counterKeys: CounterKeys): SignInLimiter {
  const counters = new Map<string, { count: number; until: number }>();
  const live = (key: string, t: number) => {
    const c = counters.get(key);
    if (c && c.until <= t) counters.delete(key);
    return c && c.until > t ? c : undefined;
  };
  return {
    async check(email, ip) {
      const t = Date.now();
      for (const key of counterKeys(email, ip)) {
        const c = live(key, t);
        if (c && c.count >= MAX_FAILURES) throw new TooManyAttempts(Math.max(1, Math.ceil((c.until - t) / 1000)));
      }
    },
    async failed(email, ip) {
      const t = Date.now();
      if (counters.size > 100_000) for (const key of counters.keys()) live(key, t); // drop the spent ones
      for (const key of counterKeys(email, ip)) {
        const c = live(key, t);
        if (c) c.count++;
        else counters.set(key, { count: 1, until: t + WINDOW_MS });
      }
    },
    async succeeded(email) {
      counters.delete(counterKeys(email, '')[0]);
    },
  };
}

function redisLimiter(redis: Redis, counterKeys: CounterKeys): SignInLimiter {
  return {
    async check(email, ip) {
      const pipeline = redis.multi();
      for (const key of counterKeys(email, ip)) pipeline.get(key).pttl(key);
      // Like the API's limiter (skipOnError): a Redis outage must not stop every sign-in.
      const res = await pipeline.exec().catch(() => null);
      const values = (res ?? []).map(([, v]) => Number(v ?? 0));
      for (let i = 0; i < values.length; i += 2) {
        if (values[i] >= MAX_FAILURES) throw new TooManyAttempts(Math.max(1, Math.ceil(values[i + 1] / 1000)));
      }
    },
    async failed(email, ip) {
      const pipeline = redis.multi();
      // SET NX starts the window at the first failure; the next ones do not stretch it.
      for (const key of counterKeys(email, ip)) pipeline.set(key, 0, 'PX', WINDOW_MS, 'NX').incr(key);
      await pipeline.exec().catch(() => null);
    },
    async succeeded(email) {
      await redis.del(counterKeys(email, '')[0]).catch(() => 0);
    },
  };
}
