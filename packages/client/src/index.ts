import createFetchClient, { createFinalURL, createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

export type { components, paths } from './schema.d.ts';
export { verifyWebhook, type VerifyOptions, type WebhookHeaders } from './webhooks.ts';

/** The SPEC error envelope: `error` of every 4xx answer. */
export type ApiError = components['schemas']['Error'];

export interface ClientOptions {
  /** e.g. `https://fieldwork.example.com` (the API's PUBLIC_URL). */
  baseUrl: string;
  /** `wk_<workspace>.<secret>`; without one, requests carry the browser's session cookie (Fieldwork Office). */
  apiKey?: string;
  /** Defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries after a network error, a 5xx or a 429 (default 3). */
  retries?: number;
  /** Whether a network error (no answer at all) is retried too (default true); false returns it at once. */
  retryNetworkErrors?: boolean;
  /** The first backoff; doubled on every retry (default 500 ms). */
  retryDelayMs?: number;
  /** A retry that would wait longer than this (a long Retry-After) is not made: the answer is returned (default 60 s). */
  maxRetryDelayMs?: number;
  /**
   * Called when the API ignored fields of a write (`Fieldwork-Ignored-Fields`, e.g. a
   * misspelled `emial`): the dotted paths, and the request. Default: a console warning.
   */
  onIgnoredFields?: (fields: string[], request: { method: string; url: string }) => void;
}

/** The server percent-encodes what a header cannot carry (and `%`, `,`) in a path. */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The default of `onIgnoredFields`: typos should not pass silently. */
export function warnIgnoredFields(fields: string[], request: { method: string; url: string }): void {
  console.warn(`Fieldwork ignored ${fields.length === 1 ? 'a field' : 'fields'} of ${request.method} ${request.url}: ${fields.join(', ')}`);
}

/** A v4 UUID from the platform (Node 20, browsers); getRandomValues where randomUUID is missing (a page served over plain http). */
function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * A fetch that gives every write an Idempotency-Key (one per call, the same on
 * each of its retries, so the server can answer a repeated write once) and
 * retries network errors, 5xx and 429 with exponential backoff, never sooner
 * than Retry-After says.
 */
export function retryingFetch(options: Pick<ClientOptions, 'fetch' | 'retries' | 'retryNetworkErrors' | 'retryDelayMs' | 'maxRetryDelayMs' | 'onIgnoredFields'> = {}) {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const onIgnored = options.onIgnoredFields ?? warnIgnoredFields;
  // E19: the answer returned (not a retried one) is reported when it names ignored fields.
  const final = (request: Request, response: Response) => {
    const ignored = response.headers.get('fieldwork-ignored-fields');
    if (ignored) onIgnored(ignored.split(',').map((f) => decodePath(f.trim())).filter(Boolean), { method: request.method, url: request.url });
    return response;
  };
  const retries = options.retries ?? 3;
  const retryNetworkErrors = options.retryNetworkErrors ?? true;
  const base = options.retryDelayMs ?? 500;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  return async (input: Request): Promise<Response> => {
    const request = new Request(input);
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', uuid());
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      // Jitter spreads the retries of many clients failing at once.
      const backoff = base * 2 ** attempt * (0.75 + Math.random() / 2);
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (err) {
        if (last || !retryNetworkErrors || request.signal.aborted) throw err;
        await sleep(backoff);
        continue;
      }
      if (last || (response.status !== 429 && response.status < 500)) return final(request, response);
      const wait = retryAfterMs(response) ?? backoff;
      if (wait > maxDelay) return final(request, response);
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}

/** The GET paths that answer pages (`pagination.total_pages`). */
export type PagedPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'application/json': { pagination: components['schemas']['Pagination'] } } } } } } ? P : never;
}[keyof paths];
type PagedGet<P extends PagedPath> = paths[P] extends { get: infer G } ? G : never;
/** One page of `P`: `{success, data, pagination}`. */
export type PageOf<P extends PagedPath> = PagedGet<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** The path and query parameters of `P` (without `page`, which paginate() sets). */
export type PageParams<P extends PagedPath> = PagedGet<P> extends { parameters: { query?: infer Q; path?: infer A } }
  ? { query?: Omit<NonNullable<Q>, 'page'>; path?: A extends object ? A : never }
  : never;

/** Thrown by paginate() when a page is answered with an error. */
export class FieldworkError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError | null,
  ) {
    super(body?.error ?? `HTTP ${status}`);
  }
}

/** A typed client of the Fieldwork API: `client.GET('/api/v1/contacts/{id}', {params: {path: {id}}})`. */
export function createClient(options: ClientOptions) {
  const fetch = retryingFetch(options);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const client = createFetchClient<paths>({ baseUrl, headers, fetch });
  const querySerializer = createQuerySerializer();

  /** Every page of a list, first to last: `for await (const page of client.paginate('/api/v1/contacts'))`. */
  async function* paginate<P extends PagedPath>(path: P, params: PageParams<P> = {} as PageParams<P>): AsyncGenerator<Awaited<PageOf<P>>> {
    const given: { query?: object; path?: object } = params;
    for (let page = 1, total = 1; page <= total; page++) {
      const url = createFinalURL(path, {
        baseUrl,
        params: { query: { ...given.query, page }, path: { ...given.path } },
        querySerializer,
        pathSerializer: defaultPathSerializer,
      });
      const response = await fetch(new Request(url, { headers }));
      const body: unknown = await response.json().catch(() => null);
      if (!response.ok) throw new FieldworkError(response.status, isError(body) ? body : null);
      total = (body as { pagination: components['schemas']['Pagination'] }).pagination.total_pages;
      yield body as Awaited<PageOf<P>>;
    }
  }

  return Object.assign(client, { paginate });
}

export type FieldworkClient = ReturnType<typeof createClient>;

function isError(body: unknown): body is ApiError {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}
