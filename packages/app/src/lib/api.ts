// The app's one way to the server: @fieldwork/client, the typed client
// integrations use, with the session cookie instead of a key (A1). Writes carry
// the session's CSRF token; every answer goes through `unwrap`.
import { type ApiError, createClient } from '@fieldwork/client';
import { humanMessage, withLabel } from './field-messages.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
let csrfToken: string | null = null;

/** Set from GET /api/v1/me (and sign-in's answer); null after signing out. */
export const setCsrfToken = (token: string | null | undefined) => {
  csrfToken = token ?? null;
};

// One retry only: a person is waiting, and a write keeps its Idempotency-Key across it.
// No retry when the server cannot be reached at all: the query cache retries reads, the
// write queue keeps the crew's writes, and waiting would only delay what the app does
// offline (who is signed in and My day from the phone).
export const api = createClient({ baseUrl: window.location.origin, retries: 1, retryDelayMs: 300, retryNetworkErrors: false });

api.use({
  onRequest({ request }) {
    if (csrfToken && WRITES.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
});

const NOT_ALLOWED = "You don't have permission to do this. An owner or admin can change your role.";

/** A 4xx or 5xx answer, with the SPEC envelope's message and field details. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiError | null,
  ) {
    // A refusal by scope names the scope (`invoices:write`): people read it in words instead.
    super(status === 403 && (!body || /scope/i.test(body.error)) ? NOT_ALLOWED : (body?.error ?? (status >= 500 ? 'Something went wrong. Try again.' : `Request failed (${status})`)));
  }
  /** The message with each detail's in words for people, for places with no field to show them by (an upload). */
  explained(): string {
    const details = Object.entries(this.fieldErrors()).map(([field, message]) => withLabel(field, message));
    for (const d of this.body?.details ?? []) if (!d.path.some((p) => p !== 'body')) details.push(humanMessage('', d.message));
    return details.length ? `${this.message}: ${details.join('; ')}` : this.message;
  }
  /** Field name -> message in words for people (A161), from `details` (paths like ['address', 'city'] become 'address.city'). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const d of this.body?.details ?? []) {
      const key = d.path.filter((p) => p !== 'body').join('.');
      if (key && !(key in out)) out[key] = humanMessage(key, d.message);
    }
    return out;
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a 2xx answer, or an ApiFailure. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  if (response.ok) return undefined as T; // 204: no body
  throw new ApiFailure(response.status, isApiError(error) ? error : null);
}

function isApiError(body: unknown): body is ApiError {
  return typeof body === 'object' && body !== null && 'error' in body && typeof (body as { error: unknown }).error === 'string';
}

export const isUnauthorized = (err: unknown) => err instanceof ApiFailure && err.status === 401;
