import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// ioredis loads only when REDIS_URL is set (memory).
const require = createRequire(import.meta.url);

/** Shared rate-limit counters when REDIS_URL is set; null means in-memory counters. */
export function connectRedis(url: string | null): Redis | null {
  if (!url) return null;
  const ioredis: typeof import('ioredis') = require('ioredis');
  return new ioredis.Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
}
