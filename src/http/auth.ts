import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { fromJson } from '../db/json.ts';
import { hashToken } from '../modules/keys/keys.service.ts';
import { AppError } from './errors.ts';

/** Who is calling: the key, its workspace and its user (the acting user, SPEC Authentication 4). */
export interface AuthContext {
  keyId: number;
  /** The key's SHA-256, unique across databases: names its rate-limit counter in a shared Redis. */
  keyHash: string;
  workspaceId: number;
  userId: string;
  scopes: string[];
  type: string;
  legacy: boolean;
}

const TOKEN = /^(wk_[A-Za-z0-9]{8}\.[A-Za-z0-9]{64}|[A-Za-z0-9]{64})$/;
const LAST_USED_EVERY_MS = 60_000;

export const invalidKey = () => new AppError(401, 'Invalid API key');

/**
 * A bearer token -> its live key. D2/D28: no usable header is 401 "Missing
 * authorization header"; an unknown, revoked or malformed key 401 "Invalid API key";
 * a key without a user 403.
 */
export class KeyAuthenticator {
  // Per-process memory of the last `last_used_at` write, so a busy key costs one
  // write a minute, not one a request; the SQL condition covers other processes.
  private lastWritten = new Map<number, number>();

  constructor(private db: Kysely<DB>) {}

  async fromHeader(header: string | undefined): Promise<AuthContext> {
    const m = /^Bearer +(\S+)\s*$/.exec(header ?? '');
    if (!m) throw new AppError(401, 'Missing authorization header');
    return this.fromToken(m[1]);
  }

  async fromToken(token: string): Promise<AuthContext> {
    if (!TOKEN.test(token)) throw invalidKey();
    const keyHash = hashToken(token);
    const key = await this.db
      .selectFrom('api_keys')
      .select(['id', 'workspace_id', 'user_id', 'scopes', 'type', 'legacy', 'revoked_at'])
      .where('token_hash', '=', keyHash)
      .executeTakeFirst();
    if (!key || key.revoked_at) throw invalidKey();
    if (!key.user_id) throw new AppError(403, 'API key must be associated with a user. Please recreate the key.');
    this.touch(key.id);
    return {
      keyId: key.id,
      keyHash,
      workspaceId: key.workspace_id,
      userId: key.user_id,
      scopes: fromJson<string[]>(key.scopes) ?? [],
      type: key.type,
      legacy: Boolean(key.legacy),
    };
  }

  private touch(keyId: number): void {
    const t = Date.now();
    if (t - (this.lastWritten.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastWritten.set(keyId, t);
    const at = new Date(t).toISOString();
    const cutoff = new Date(t - LAST_USED_EVERY_MS).toISOString();
    this.db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', cutoff)]))
      .execute()
      .catch(() => this.lastWritten.delete(keyId)); // try again on the next request
  }
}

/** `read` grants every `<x>:read`, `write` every `<x>:write` (SPEC Key types). */
export function hasScope(scopes: readonly string[], required: string): boolean {
  return scopes.includes(required) || scopes.includes(required.endsWith(':read') ? 'read' : 'write');
}

/** The one scope check. Uploads and comments word it differently (SPEC Errors). */
export function requireScope(auth: AuthContext, scope: string, wording: 'api' | 'module' = 'api'): void {
  if (hasScope(auth.scopes, scope)) return;
  throw new AppError(
    403,
    wording === 'module' ? `Missing required scope: ${scope}` : `Insufficient permissions. Required scope: ${scope}`,
  );
}
