// Every environment variable of the README's Configuration table, parsed and typed once.

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  publicUrl: string;
  storageDir: string;
  /** E30: files in an S3-compatible bucket instead of `storageDir` (which then holds only uploads in progress); null = on disk. */
  s3: S3Config | null;
  internalApiKey: string | null;
  webhookRetrySchedule: number[]; // ms before attempts 2..5
  webhookTimeout: number; // ms
  webhookAllowPrivateUrls: boolean;
  smtpUrl: string | null;
  mailFrom: string;
  messageRetrySchedule: number[]; // ms before attempts 2..5 of a customer email or SMS
  messageTimeout: number; // ms an SMTP server or SMS provider has to answer
  apiRateLimit: RateLimit;
  formRateLimit: RateLimit;
  redisUrl: string | null;
  worker: 'embedded' | 'off';
  logLevel: string;
  /** ms: finished deliveries, messages and outbox rows older than this are pruned daily (src/outbox/retention.ts). */
  retention: number;
  /** A second listener serving Prometheus `/metrics` (src/http/metrics.ts); null = none. */
  metricsPort: number | null;
  idempotencyTtl: number; // ms a stored idempotent response is replayed (E11)
  hubLinkTtl: number; // ms a customer hub link stays valid (E7)
  hubRateLimit: RateLimit; // hub requests per token and per client address (E8a)
  sessionIdle: number; // ms without a request after which a session ends (A1)
  sessionTtl: number; // ms after sign-in at which a session ends, however busy (A1)
  recurringHorizonDays: number; // E20: a recurring job's visits exist through today plus this many days
}

export interface S3Config {
  bucket: string;
  /** Object keys start with it (no slash at either end); '' = the bucket's root. */
  prefix: string;
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

export interface RateLimit {
  max: number;
  windowMs: number;
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "5m" -> 300000. Units ms, s, m, h (and d). */
export function parseDuration(text: string, name: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) throw new Error(`${name}: "${text}" is not a duration like 500ms, 10s, 5m or 2h`);
  return Number(m[1]) * units[m[2]];
}

/** "1000/1m" -> {max: 1000, windowMs: 60000}. */
export function parseRateLimit(text: string, name: string): RateLimit {
  const [max, window] = text.split('/');
  const n = Number(max);
  if (!Number.isInteger(n) || n < 1 || !window) throw new Error(`${name}: "${text}" is not a limit like 1000/1m`);
  return { max: n, windowMs: parseDuration(window, name) };
}

/** "5m,30m" -> [300000, 1800000]. */
const durations = (text: string, name: string): number[] => text.split(',').map((d) => parseDuration(d, name));

function parseBool(text: string | undefined, fallback: boolean, name: string): boolean {
  if (text === undefined || text === '') return fallback;
  if (/^(true|1|yes)$/i.test(text)) return true;
  if (/^(false|0|no)$/i.test(text)) return false;
  throw new Error(`${name}: "${text}" is not true or false`);
}

/** A whole number of days, 1 to 3660 (ten years): more would make series too large to answer in one request. */
function parseDays(text: string, name: string): number {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || n < 1 || n > 3660) throw new Error(`${name}: "${text}" is not a whole number of days from 1 to 3660`);
  return n;
}

function parsePort(text: string, name: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65535) throw new Error(`${name}: "${text}" is not a port`);
  return port;
}

/**
 * SMTP_URL is checked at start like PORT (issue 25: `localhost:2525` was accepted and
 * every email then failed with ESOCKET). Credentials are not repeated in the message.
 */
function parseSmtpUrl(text: string | undefined): string | null {
  if (!text) return null;
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    const shown = text.replace(/^([^@]*)@/, '***@');
    throw new Error(`SMTP_URL: "${shown}" is not a URL like smtp://user:pass@host:587 or smtps://host:465`);
  }
  return text;
}

/** `s3://bucket/prefix` (E30). S3's own bucket naming rules; the prefix is any path without empty segments. */
export function parseStorageUrl(text: string, name = 'STORAGE_URL'): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(text.trim());
  const prefix = (m?.[2] ?? '').replace(/\/+$/, '');
  const badPart = (part: string) => part === '' || part === '.' || part === '..';
  if (!m || (prefix !== '' && prefix.split('/').some(badPart))) {
    throw new Error(`${name}: "${text}" is not a URL like s3://bucket or s3://bucket/prefix`);
  }
  return { bucket: m[1], prefix };
}

function parseS3(env: NodeJS.ProcessEnv): S3Config | null {
  if (!env.STORAGE_URL) return null;
  const { bucket, prefix } = parseStorageUrl(env.STORAGE_URL);
  const endpoint = env.S3_ENDPOINT || null;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint)) throw new Error(`S3_ENDPOINT: "${endpoint}" is not a URL like https://s3.example.com`);
  const accessKeyId = env.S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || null;
  // F252: both or neither; neither = the SDK's own chain (AWS_* variables, the machine's role).
  if (!accessKeyId !== !secretAccessKey) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither');
  return {
    bucket,
    prefix,
    endpoint,
    region: env.S3_REGION || 'us-east-1', // F252: what S3-compatible stores without regions accept
    accessKeyId,
    secretAccessKey,
    forcePathStyle: parseBool(env.S3_FORCE_PATH_STYLE, false, 'S3_FORCE_PATH_STYLE'),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT ?? '3000', 'PORT');
  const worker = env.WORKER ?? 'embedded';
  if (worker !== 'embedded' && worker !== 'off') throw new Error(`WORKER: "${worker}" is not embedded or off`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl: env.DATABASE_URL ?? 'sqlite:./data/fieldwork.db',
    // With PORT=0 the real port is known only after listen; main.ts fills it in then.
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    storageDir: env.STORAGE_DIR ?? './data/files',
    s3: parseS3(env),
    internalApiKey: env.INTERNAL_API_KEY || null,
    webhookRetrySchedule: durations(env.WEBHOOK_RETRY_SCHEDULE ?? '5m,30m,2h,24h', 'WEBHOOK_RETRY_SCHEDULE'),
    webhookTimeout: parseDuration(env.WEBHOOK_TIMEOUT ?? '10s', 'WEBHOOK_TIMEOUT'),
    webhookAllowPrivateUrls: parseBool(env.WEBHOOK_ALLOW_PRIVATE_URLS, false, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM ?? 'Fieldwork <no-reply@localhost>',
    messageRetrySchedule: durations(env.MESSAGE_RETRY_SCHEDULE ?? '1m,5m,30m,2h', 'MESSAGE_RETRY_SCHEDULE'),
    messageTimeout: parseDuration(env.MESSAGE_TIMEOUT ?? '30s', 'MESSAGE_TIMEOUT'),
    apiRateLimit: parseRateLimit(env.API_RATE_LIMIT ?? '1000/1m', 'API_RATE_LIMIT'),
    formRateLimit: parseRateLimit(env.FORM_RATE_LIMIT ?? '100/1h', 'FORM_RATE_LIMIT'),
    redisUrl: env.REDIS_URL || null,
    worker,
    logLevel: env.LOG_LEVEL ?? 'info',
    retention: parseDuration(env.RETENTION ?? '30d', 'RETENTION'),
    metricsPort: env.METRICS_PORT ? parsePort(env.METRICS_PORT, 'METRICS_PORT') : null,
    idempotencyTtl: parseDuration(env.IDEMPOTENCY_TTL ?? '24h', 'IDEMPOTENCY_TTL'),
    hubLinkTtl: parseDuration(env.HUB_LINK_TTL ?? '30d', 'HUB_LINK_TTL'),
    hubRateLimit: parseRateLimit(env.HUB_RATE_LIMIT ?? '60/1m', 'HUB_RATE_LIMIT'),
    sessionIdle: parseDuration(env.SESSION_IDLE ?? '7d', 'SESSION_IDLE'),
    sessionTtl: parseDuration(env.SESSION_TTL ?? '30d', 'SESSION_TTL'),
    recurringHorizonDays: parseDays(env.RECURRING_HORIZON_DAYS ?? '365', 'RECURRING_HORIZON_DAYS'),
  };
}
