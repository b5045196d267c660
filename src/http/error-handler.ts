import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.ts';
import { type AjvError, AppError, ajvDetails, type Detail, ValidationError } from '../kernel/errors.ts';

/** D4: how a route words a failed body validation. */
export type ValidationStyle = 'default' | 'contacts' | 'uploads' | 'form';
const styles: Record<ValidationStyle, { status: number; error: string }> = {
  default: { status: 400, error: 'Invalid request' },
  contacts: { status: 422, error: 'Validation failed' },
  uploads: { status: 400, error: 'Validation error' },
  form: { status: 400, error: 'Invalid request data' },
};

function send(reply: { code(n: number): { send(b: unknown): unknown } }, status: number, error: string, details?: Detail[]) {
  return reply.code(status).send(details ? { success: false, error, details } : { success: false, error });
}

function styleOf(request: FastifyRequest) {
  return request.routeOptions.config?.validation ?? 'default';
}

/**
 * Errors Fastify raises before a route is found. A path that is not valid
 * percent-encoding names no resource: D5's 404 `Not found`.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id); // no route, so no onSend hook sets it
  if (err.code === 'FST_ERR_BAD_URL') return send(reply, 404, 'Not found');
  return send(reply, 500, 'Internal server error');
}

/** A body left unread is read and dropped up to this much (and this long) before the answer goes out. */
const DISCARD_BYTES = 16 * 1024 * 1024;
const DISCARD_MS = 5_000;
/** ...and a body that stops arriving for this long is given up on at once (a stalled client). */
const DISCARD_IDLE_MS = 1_000;

/**
 * Reads and drops what is left of a request body, up to a bound. Answering and
 * closing while the client still sends makes its kernel see a reset, and the
 * client may lose the answer with it (issue 25: one curl run in four).
 */
function discardBody(raw: FastifyRequest['raw']): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      clearTimeout(idle);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('error', done);
      raw.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      idle.refresh();
      seen += chunk.length;
      if (seen > DISCARD_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MS);
    const idle = setTimeout(done, DISCARD_IDLE_MS);
    raw.on('data', onData);
    raw.on('end', done);
    raw.on('error', done);
    raw.on('close', done);
    raw.resume();
  });
}

/**
 * F241: an answer sent before the request's body was read to its end (a refusal by the
 * multipart parser's limits, the body limit, the content type, the key, the rate limit)
 * first reads and drops the rest, so the next request on a kept-alive connection is
 * parsed instead of waiting behind the unread bytes forever. A body that does not end
 * within the bound gets `Connection: close`. Node dumps a body nothing started
 * reading only once the answer is out; one that a parser started and left (the
 * multipart parser unpipes at its limit) it leaves paused, which hung the connection.
 */
function drainBeforeReply(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  const raw = request.raw;
  if (received(raw)) {
    done(null, payload);
    return;
  }
  void discardBody(raw).then(() => {
    if (!received(raw)) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * The body is in (or there is none: RFC 9112, no Content-Length and no Transfer-Encoding).
 * `readableEnded` too: inject()'s requests never set `complete`.
 */
function received(raw: FastifyRequest['raw']): boolean {
  if (raw.complete || raw.readableEnded) return true;
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/** One handler maps every error, ours or Fastify's, to `{success: false, error}` (D5). */
export function registerErrorHandler(app: FastifyInstance): void {
  app.addHook('onSend', drainBeforeReply);
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, request, reply) => {
    if (err instanceof ValidationError) {
      const style = styles[styleOf(request)];
      return send(reply, style.status, style.error, err.details);
    }
    if (err instanceof AppError) {
      if (err.status === 429) reply.header('retry-after', reply.getHeader('retry-after') ?? '60');
      return send(reply, err.status, err.message, err.details);
    }
    if (err.validation) {
      const details = ajvDetails(err.validation as AjvError[]);
      if (err.validationContext === 'params') {
        // D5: a non-integer or out-of-range :id is simply an id that does not exist.
        const param = String(details[0]?.path[0] ?? 'id');
        const resource = request.routeOptions.config?.notFound?.[param] ?? 'Resource';
        return send(reply, 404, `${resource} not found`);
      }
      const style = styleOf(request);
      if (err.validationContext === 'querystring' && style !== 'uploads') return send(reply, 400, 'Invalid request', details);
      const { status, error } = styles[style];
      return send(reply, status, error, details);
    }
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || (err instanceof SyntaxError && err.statusCode === 400)) {
      // F128: Fastify closes the connection after any body parser error, in case the rest of
      // the body is still coming; bad JSON was read to its end, so the connection is kept
      // and the requests a client pipelined behind it are answered, not dropped unanswered.
      if (request.raw.complete) reply.header('connection', 'keep-alive');
      return send(reply, 400, 'Invalid JSON body');
    }
    // The rest of the body is read and dropped before the answer goes out (drainBeforeReply).
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, 413, 'Request body too large');
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return send(reply, 415, 'Unsupported content type');
    if (err.statusCode === 429) return send(reply, 429, 'Rate limit exceeded. Try again later.');
    if (isDatabaseUnavailable(err)) {
      // Nothing was written (a transaction that lost its connection is rolled back); the caller may retry.
      request.log.warn({ err: err.message }, 'database unavailable');
      return send(reply.header('retry-after', '5'), 503, 'Service temporarily unavailable');
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err }, 'request failed');
      return send(reply, 500, 'Internal server error');
    }
    return send(reply, status, err.message);
  });
  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'Not found'));
}
