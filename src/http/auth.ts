import type { Kysely } from 'kysely';
import { hasScope } from '../domain/scopes.ts';
import { findKeyByHash, KEY_CHANGES_CHANNEL, touchKey } from '../db/api-keys.ts';
import type { Database } from '../db/database.ts';
import { fromJson } from '../db/json.ts';
import { type Listener, listen } from '../db/listen.ts';
import type { DB } from '../db/schema.ts';
import { AppError } from '../kernel/errors.ts';
import { hashToken } from '../kernel/tokens.ts';

/**
 * Who is calling: the key, its workspace and its user (the acting user). A session
 * (src/http/sessions.ts) builds the same context for its person and membership (A11).
 */
export interface AuthContext {
  /** The caller E11 stores Idempotency-Keys under: the key's id, or minus the person's account id for a session (A12). */
  keyId: number;
  /** Names the caller's rate-limit counter, unique across databases sharing a Redis: the key's SHA-256, or a hash of the person's email (A12). */
  keyHash: string;
  workspaceId: number;
  userId: string;
  scopes: string[];
  type: string;
  legacy: boolean;
  /** A1: the signed-in person, when the caller is a session; absent for a key. */
  session?: SessionInfo;
  /** A1: the member's role when the caller is a session (members' limits, A14); absent for a key, which keeps its own scopes. */
  role?: string;
  /** E11: set (on a copy, per request) when a write carries an Idempotency-Key. */
  idempotency?: IdempotentWrite;
}

export interface SessionInfo {
  /** sessions.id */
  id: number;
  accountId: number;
  email: string;
  /** users.id of the membership the session acts as. */
  memberId: number;
  /** What every write made with this session must carry in X-CSRF-Token. */
  csrfToken: string;
}

/** A write's Idempotency-Key (src/http/idempotency.ts), as `transact` sees it. */
export interface IdempotentWrite {
  /** Records, inside the effect's transaction, the response the route will send for `result`. */
  store(trx: Kysely<DB>, result: unknown): Promise<void>;
}

const TOKEN = /^(wk_[A-Za-z0-9]{8}\.[A-Za-z0-9]{64}|[A-Za-z0-9]{64})$/;
const BEARER = /^Bearer +(\S+)\s*$/;
const LAST_USED_EVERY_MS = 60_000;
const CACHE_MAX = 10_000;
/** With change notices (PostgreSQL) the lifetime is only a backstop. */
const NOTIFIED_TTL_MS = 5 * 60_000;
const UNNOTIFIED_TTL_MS = 1_000;

export const invalidKey = () => new AppError(401, 'Invalid API key');

/**
 * A bearer token -> its live key. D2/D28: no usable header is 401 "Missing
 * authorization header"; an unknown, revoked or malformed key 401 "Invalid API key";
 * a key without a user 403.
 *
 * Live keys are cached in the process. On PostgreSQL a trigger announces every
 * change of a key (revocation, its user removed, its workspace deleted) on a
 * channel every process listens to, and each drops the key at once; while that
 * connection is down nothing is cached, since a message may be lost. On SQLite,
 * where the other processes are the CLI's, an entry lives one second: a revoked
 * key is refused within a second everywhere, and a busy key costs one lookup a
 * second instead of one a request.
 *
 * An entry is found by the exact text the caller sent (the Authorization header,
 * or the form's key), so a busy key costs a Map lookup: no parsing and no SHA-256
 * per request. Each entry also knows its key's hash, by which changes drop it.
 */
export class KeyAuthenticator {
  // Per-process memory of the last `last_used_at` write, so a busy key costs one
  // write a minute, not one a request; the SQL condition covers other processes.
  private lastWritten = new Map<number, number>();
  private cache = new Map<string, { auth: AuthContext; until: number }>();
  /** Bumped by every change announced: a lookup that overlapped one is not cached. */
  private generation = 0;
  private listener: Listener | null = null;
  private ttlMs = UNNOTIFIED_TTL_MS;

  constructor(private db: Kysely<DB>) {}

  /** Starts the cache where key changes are announced (PostgreSQL). */
  static forDatabase(database: Database): KeyAuthenticator {
    const authenticator = new KeyAuthenticator(database.db);
    if (database.dialect === 'postgres') {
      const forget = (hash?: string) => {
        authenticator.generation++;
        if (hash) authenticator.dropKey(hash);
        else authenticator.cache.clear();
      };
      authenticator.listener = listen(database.url, KEY_CHANGES_CHANNEL, (hash) => forget(hash), () => forget());
      authenticator.ttlMs = NOTIFIED_TTL_MS;
    }
    return authenticator;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  /** Drops a key this process changed (revoked) at once, before any change notice arrives. */
  forget(tokenHash: string): void {
    this.generation++;
    this.dropKey(tokenHash);
  }

  private dropKey(tokenHash: string): void {
    for (const [sent, entry] of this.cache) if (entry.auth.keyHash === tokenHash) this.cache.delete(sent);
  }

  /** The live key of a recent request that sent exactly `sent`, from the cache; undefined when it must be looked up. */
  cached(sent: string): AuthContext | undefined {
    const hit = this.cache.get(sent);
    if (hit === undefined) return undefined;
    const t = Date.now();
    if (hit.until <= t) return undefined;
    this.touch(hit.auth.keyId, t);
    return hit.auth;
  }

  async fromHeader(header: string | undefined): Promise<AuthContext> {
    const hit = header === undefined ? undefined : this.cached(header);
    if (hit) return hit;
    const m = BEARER.exec(header ?? '');
    if (!m) throw new AppError(401, 'Missing authorization header');
    return this.lookup(m[1], header!);
  }

  async fromToken(token: string): Promise<AuthContext> {
    // Under a name no header can have (HTTP refuses NUL), so a form's key never finds a header's entry.
    const sent = `\u0000${token}`;
    return this.cached(sent) ?? this.lookup(token, sent);
  }

  /** The key of `token` from the database, cached under `sent` (what the caller sent it as). */
  private async lookup(token: string, sent: string): Promise<AuthContext> {
    if (!TOKEN.test(token)) throw invalidKey();
    const keyHash = hashToken(token);
    const t = Date.now();
    const generation = this.generation;
    const key = await findKeyByHash(this.db, keyHash);
    if (!key || key.revoked_at) throw invalidKey();
    if (!key.user_id) throw new AppError(403, 'API key must be associated with a user. Please recreate the key.');
    const auth: AuthContext = {
      keyId: key.id,
      keyHash,
      workspaceId: key.workspace_id,
      userId: key.user_id,
      scopes: fromJson<string[]>(key.scopes) ?? [],
      type: key.type,
      legacy: Boolean(key.legacy),
    };
    const notified = this.listener === null || this.listener.live;
    if (notified && generation === this.generation) {
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(sent, { auth, until: t + this.ttlMs });
    }
    this.touch(key.id, t);
    return auth;
  }

  private touch(keyId: number, t: number): void {
    if (t - (this.lastWritten.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastWritten.set(keyId, t);
    touchKey(this.db, keyId, new Date(t).toISOString(), new Date(t - LAST_USED_EVERY_MS).toISOString()).catch(() =>
      this.lastWritten.delete(keyId), // try again on the next request
    );
  }
}

/**
 * Scopes no API key can hold (A1, A5: team and key management answer only to
 * sessions of owners and admins, a key gets 403): granted by the role of a
 * session, never by `write`, and refused by key creation (keys.service.ts).
 */
export const SESSION_ONLY_SCOPES = ['team:manage', 'keys:manage'] as const;

/** `read` grants every `<x>:read`, `write` every `<x>:write` (src/domain/scopes.ts, shared with the app). */
export { hasScope };

/** The one scope check: one scope, or any one of a list. Uploads and comments word it differently. */
export function requireScope(auth: AuthContext, scope: string | readonly string[], wording: 'api' | 'module' = 'api'): void {
  const accepted = typeof scope === 'string' ? [scope] : scope;
  if (accepted.some((s) => hasScope(auth.scopes, s))) return;
  const named = typeof scope === 'string' ? scope : `one of ${scope.join(', ')}`;
  throw new AppError(403, wording === 'module' ? `Missing required scope: ${named}` : `Insufficient permissions. Required scope: ${named}`);
}
