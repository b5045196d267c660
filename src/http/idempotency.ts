import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { type Claim, completeRecord, findRecord, type IdempotencyRecord, insertClaim, type RecordId, releaseClaim, takeOver } from '../db/idempotency.ts';
import type { DB } from '../db/schema.ts';
import { AppError, conflict } from '../kernel/errors.ts';
import type { AuthContext, IdempotentWrite } from './auth.ts';

/** E11: 1 to 255 printable ASCII characters. */
const KEY = /^[\x20-\x7e]{1,255}$/;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * How long a `running` claim holds its key. Past it the process is taken for dead
 * and another request may take the key over; if the first was only slow, its
 * commit finds the key no longer its own and rolls back (409), so one effect wins.
 */
export const LEASE_MS = 60_000;
/** Multipart bodies (uploads) are streamed to the handler after the key is claimed: not compared. */
const MULTIPART = 'multipart';

const inProgress = () => conflict('A request with this Idempotency-Key is in progress');

export interface IdempotencyOptions {
  db: Kysely<DB>;
  /** IDEMPOTENCY_TTL in ms: how long a record is replayed. */
  ttlMs: number;
}

/** The default envelope of a write's answer; routes with another declare `config.envelope`. */
export const dataEnvelope = (data: unknown): Record<string, unknown> => ({ success: true, data });

/**
 * E11 on every write registered in `app` after it (the authenticated /api/v1 and
 * /api/webhooks): a request with an `Idempotency-Key` claims it before validation
 * (so a validation error is stored and replayed like any 4xx), the route's effect
 * records the response in its own transaction (`transact`), and any answer not
 * recorded there is recorded (below 500, not 429) or forgotten (500s, 429) on send.
 */
export function idempotency(app: FastifyInstance, options: IdempotencyOptions): void {
  // The header in every write's OpenAPI description (a malformed one never reaches this
  // schema: the hook below answers 400 `Invalid Idempotency-Key` first).
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().some((m) => WRITES.has(m)) && !route.schema?.headers) route.schema = { ...route.schema, headers: IdempotencyKeyHeader };
  });
  // Callback hooks: a request without a key (almost all) costs no promise here.
  app.addHook('preValidation', (request, reply, done) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !request.auth || !WRITES.has(request.method)) return done();
    claimIdempotencyKey(options, request, reply, request.auth, header).then((answered) => {
      if (!answered) done();
    }, done);
  });
  app.addHook('onSend', idempotencyOnSend);
}

const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'E11: 1 to 255 printable ASCII characters, per API key. A repeat answers the first answer (`Idempotent-Replayed: true`).',
    }),
  ),
});

/** E11: 400 `Invalid Idempotency-Key` unless `key` is 1 to 255 printable ASCII characters. */
export function checkIdempotencyKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || !KEY.test(key)) throw new AppError(400, 'Invalid Idempotency-Key');
}

/**
 * Claims `key` for the request of `auth` (the embedded form, whose key is in its
 * body, calls it once it knows the API key). True when the request was answered:
 * a replay. Otherwise `request.auth` is `auth` with the key, for `transact`.
 * Throws 400 for a malformed key, 422 for a reuse, 409 while the key is in progress.
 */
export async function claimIdempotencyKey(
  { db, ttlMs }: IdempotencyOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthContext,
  key: unknown,
): Promise<boolean> {
  checkIdempotencyKey(key);
  const write = new IdempotentRequest(db, request, reply, { workspaceId: auth.workspaceId, keyId: auth.keyId, key });
  const replay = await write.claim(ttlMs);
  if (replay) {
    reply.code(replay.status ?? 200).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(replay.response);
    return true;
  }
  // A copy: the authenticator caches and shares the key's context between requests.
  request.auth = { ...auth, idempotency: write };
  return false;
}

/** The onSend hook of every route that claims keys: records or forgets what `transact` did not. */
export function idempotencyOnSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void): void {
  const write = request.auth?.idempotency;
  if (!(write instanceof IdempotentRequest)) {
    done(null, payload);
    return;
  }
  write.finish(reply.statusCode, payload).then(() => done(null, payload));
}

class IdempotentRequest implements IdempotentWrite {
  private readonly lockedBy = randomUUID();
  /** The status `store` recorded in the effect's transaction. */
  private storedStatus: number | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly id: RecordId,
  ) {}

  /** Claims the key; answers the record to replay, or throws 422/409. */
  async claim(ttlMs: number): Promise<IdempotencyRecord | null> {
    const { request } = this;
    const bodyHash = /^multipart\//i.test(request.headers['content-type'] ?? '') ? MULTIPART : createHash('sha256').update(request.rawBody ?? '').digest('hex');
    for (let attempt = 0; attempt < 5; attempt++) {
      const t = Date.now();
      const claim: Claim = {
        method: request.method,
        path: request.url,
        bodyHash,
        lockedBy: this.lockedBy,
        lockedUntil: new Date(t + LEASE_MS).toISOString(),
        createdAt: new Date(t).toISOString(),
        expiresAt: new Date(t + ttlMs).toISOString(),
      };
      if (await insertClaim(this.db, this.id, claim)) return null;
      const seen = await findRecord(this.db, this.id);
      if (!seen) continue; // forgotten (a 5xx) meanwhile: insert again
      const at = claim.createdAt;
      // An expired record counts as absent; a lapsed lease was left by a dead process.
      const expired = seen.expires_at <= at;
      if (!expired) {
        if (seen.method !== claim.method || seen.path !== claim.path || seen.body_hash !== claim.bodyHash) {
          throw new AppError(422, 'Idempotency-Key reused with different parameters');
        }
        if (seen.state === 'done') return seen;
        if (seen.locked_until > at) throw inProgress();
      }
      if (await takeOver(this.db, seen, claim)) return null;
      // Another request took it over first: look again.
    }
    throw inProgress();
  }

  async store(trx: Kysely<DB>, result: unknown): Promise<void> {
    const { request, reply } = this;
    const config = request.routeOptions.config;
    const status = config.successStatus ?? (request.method === 'POST' ? 201 : 200); // D3
    const body = (config.envelope ?? dataEnvelope)(result);
    // The route's own serializer, so the bytes stored are the bytes it sends.
    const serialize = reply.getSerializationFunction(String(status)) ?? JSON.stringify;
    if (!(await completeRecord(trx, this.id, this.lockedBy, status, serialize(body), false))) throw inProgress();
    this.storedStatus = status;
  }

  /** On send: records an answer the effect's transaction did not, or forgets the claim. */
  async finish(status: number, payload: unknown): Promise<void> {
    if (status === this.storedStatus) return;
    try {
      if (status >= 500 || status === 429 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
        await releaseClaim(this.db, this.id, this.lockedBy);
      } else {
        // Nothing was committed with this answer (an error, or a route without an effect).
        await completeRecord(this.db, this.id, this.lockedBy, status, String(payload), true);
      }
    } catch (err) {
      // The claim stays `running` until its lease lapses; then a retry takes it over.
      this.request.log.error({ err }, 'idempotency record not updated');
    }
  }
}
