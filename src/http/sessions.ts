import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { deleteSession, findSessionByHash, type SessionRow, touchSession } from '../db/sessions.ts';
import type { DB } from '../db/schema.ts';
import { AppError } from '../kernel/errors.ts';
import { hashToken } from '../kernel/tokens.ts';
import type { AuthContext } from './auth.ts';
import { scopesOfRole } from './roles.ts';

export const SESSION_COOKIE = 'fieldwork_session';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const notSignedIn = () => new AppError(401, 'Not signed in');
export const invalidCsrf = () => new AppError(403, 'Invalid CSRF token');

/** A new session token: 256 random bits, base64url (A1 asks for at least 128). */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

/**
 * The CSRF token of a session, derived from its secret token, so nothing more is
 * stored and only the holder of the cookie can know it (A13).
 */
export const csrfTokenOf = (token: string): string => createHash('sha256').update(`csrf:${token}`).digest('base64url');

/** The `fieldwork_session` cookie's value, if the request carries a well-formed one. */
export function sessionToken(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return TOKEN.test(value) ? value : null;
    }
  }
  return null;
}

export interface SessionSettings {
  idleMs: number;
  ttlMs: number;
  /** Secure cookies when PUBLIC_URL is https. */
  secure: boolean;
}

/** Sets the session cookie (A1: HttpOnly, SameSite=Lax, Path=/, Secure on https); `null` clears it. */
export function setSessionCookie(reply: FastifyReply, settings: SessionSettings, token: string | null): void {
  const life = token === null ? 'Max-Age=0' : `Max-Age=${Math.floor(settings.ttlMs / 1000)}`;
  const parts = [`${SESSION_COOKIE}=${token ?? ''}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', life];
  if (settings.secure) parts.push('Secure');
  reply.header('set-cookie', parts.join('; '));
}

/**
 * The second way to build an AuthContext (A11): a session cookie instead of a
 * key. Sessions are read from the database on every request, not cached, so a
 * sign-out, a removed member or a changed role applies to the next request.
 * Every write must carry the session's CSRF token (A13).
 */
export class SessionAuthenticator {
  /** `last_seen_at` is recorded at most this often: idle expiry is that precise. */
  private readonly touchEveryMs: number;

  constructor(
    private readonly db: Kysely<DB>,
    readonly settings: SessionSettings,
  ) {
    this.touchEveryMs = Math.min(60_000, Math.floor(settings.idleMs / 4));
  }

  /** The live session of a request's cookie, CSRF checked for writes; 401 without one. */
  async fromRequest(request: FastifyRequest): Promise<AuthContext> {
    const token = sessionToken(request);
    if (!token) throw notSignedIn();
    const row = await findSessionByHash(this.db, hashToken(token));
    if (!row) throw notSignedIn();
    const t = Date.now();
    const lastSeen = Date.parse(row.last_seen_at);
    if (t >= Date.parse(row.expires_at) || t >= lastSeen + this.settings.idleMs) {
      await deleteSession(this.db, row.id);
      throw notSignedIn();
    }
    const csrfToken = csrfTokenOf(token);
    if (!SAFE_METHODS.has(request.method) && !sameToken(request.headers['x-csrf-token'], csrfToken)) throw invalidCsrf();
    if (t - lastSeen >= this.touchEveryMs) await touchSession(this.db, row.id, new Date(t).toISOString());
    return sessionContext(row, csrfToken);
  }
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The AuthContext of a session: its member acts, with the scopes of the member's role. */
export function sessionContext(row: Pick<SessionRow, 'id' | 'account_id' | 'email' | 'member_id' | 'workspace_id' | 'user_id' | 'role'>, csrfToken: string): AuthContext {
  return {
    keyId: -row.account_id,
    keyHash: hashToken(`person:${row.email}`),
    workspaceId: row.workspace_id,
    userId: row.user_id,
    scopes: [...scopesOfRole(row.role)],
    type: 'session',
    legacy: false,
    role: row.role,
    session: { id: row.id, accountId: row.account_id, email: row.email, memberId: row.member_id, csrfToken },
  };
}
