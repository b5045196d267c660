import { Redis } from 'ioredis';

/** Shared rate-limit counters when REDIS_URL is set; null means in-memory counters. */
export function connectRedis(url: string | null): Redis | null {
  if (!url) return null;
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
}
