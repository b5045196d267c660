import type { Redis } from 'ioredis';

/**
 * FORM_RATE_LIMIT (SPEC Limits): a fixed window per workspace. The window is
 * the configured duration (1h by default) aligned to the epoch, so every
 * instance agrees on when it resets. Counters live in Redis when REDIS_URL is
 * set (shared by all instances), else in this process.
 */
export interface FormRateLimiter {
  /** Counts one submission; `allowed` false once the window's budget is spent. */
  hit(workspaceHash: string): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

export function formRateLimiter(limit: { max: number; windowMs: number }, redis: Redis | null): FormRateLimiter {
  const windowOf = (t: number) => Math.floor(t / limit.windowMs) * limit.windowMs;
  const retryAfter = (t: number) => Math.max(1, Math.ceil((windowOf(t) + limit.windowMs - t) / 1000));

  if (redis) {
    return {
      async hit(hash) {
        const t = Date.now();
        // The workspace hash, not its id: ids repeat across databases sharing one Redis.
        const key = `fieldwork-form:${hash}:${windowOf(t)}`;
        try {
          const res = await redis.multi().incr(key).pexpire(key, limit.windowMs).exec();
          const count = Number(res?.[0]?.[1] ?? 0);
          return { allowed: count <= limit.max, retryAfterSeconds: retryAfter(t) };
        } catch {
          // Like the /api/v1 limiter (skipOnError): a Redis outage must not stop customers' requests.
          return { allowed: true, retryAfterSeconds: 0 };
        }
      },
    };
  }

  const counts = new Map<string, number>();
  let currentWindow = 0;
  return {
    async hit(hash) {
      const t = Date.now();
      const w = windowOf(t);
      if (w !== currentWindow) {
        counts.clear(); // a new window: every old counter is spent
        currentWindow = w;
      }
      const count = (counts.get(hash) ?? 0) + 1;
      counts.set(hash, count);
      return { allowed: count <= limit.max, retryAfterSeconds: retryAfter(t) };
    },
  };
}
