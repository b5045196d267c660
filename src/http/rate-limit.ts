import type { Redis } from 'ioredis';
import type { RateLimit } from '../config.ts';

/** One request counted: whether it is within the window's budget, and what the X-RateLimit-* headers say. */
export interface Count {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (X-RateLimit-Reset, and Retry-After once refused); at least 1. */
  resetSeconds: number;
}

/**
 * A fixed window per key, the one limiter of the API (D18), the customer hub
 * (HUB_RATE_LIMIT) and the website form (FORM_RATE_LIMIT). The window is the
 * configured duration aligned to the epoch, so every instance agrees on when it
 * resets. Counters live in Redis when REDIS_URL is set (shared by all
 * instances), else in this process, where counting is synchronous: no promise
 * and no callback on the path every request takes.
 */
export interface RateLimiter {
  /** Counts one request against `key`. A Promise only when the counters are in Redis. */
  hit(key: string): Count | Promise<Count>;
}

export function rateLimiter(limit: RateLimit, redis: Redis | null, namespace: string): RateLimiter {
  const { max, windowMs } = limit;
  const count = (n: number, t: number, windowStart: number): Count => ({
    allowed: n <= max,
    limit: max,
    remaining: Math.max(0, max - n),
    resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - t) / 1000)),
  });

  if (redis) {
    return {
      async hit(key) {
        const t = Date.now();
        const windowStart = t - (t % windowMs);
        const name = `${namespace}:${key}:${windowStart}`;
        try {
          const res = await redis.multi().incr(name).pexpire(name, windowMs).exec();
          return count(Number(res?.[0]?.[1] ?? 0), t, windowStart);
        } catch {
          // A Redis outage must not stop the requests it only counts.
          return count(0, t, windowStart);
        }
      },
    };
  }

  const counts = new Map<string, number>();
  let currentWindow = 0;
  return {
    hit(key) {
      const t = Date.now();
      const windowStart = t - (t % windowMs);
      if (windowStart !== currentWindow) {
        counts.clear(); // a new window: every old counter is spent
        currentWindow = windowStart;
      }
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return count(n, t, windowStart);
    },
  };
}
