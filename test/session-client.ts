import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { mintSetupLink } from '../src/modules/accounts/accounts.service.ts';
import type { Res } from './helpers.ts';

export const ORIGIN = 'http://fieldwork.test';
export const PASSWORD = 'correct horse battery';

/** The `fieldwork_session` value a response set, if any. */
export function cookieOf(res: { headers: Record<string, unknown> }): string | null {
  const set = res.headers['set-cookie'];
  const line = [set].flat().find((c): c is string => typeof c === 'string' && c.startsWith('fieldwork_session='));
  if (!line) return null;
  const value = line.slice('fieldwork_session='.length).split(';')[0];
  return value || null;
}

export async function call(app: FastifyInstance, method: string, url: string, o: { body?: unknown; cookie?: string | null; csrf?: string; headers?: Record<string, string> } = {}): Promise<Res> {
  const res = await app.inject({
    method: method as 'GET',
    url,
    payload: o.body === undefined ? undefined : JSON.stringify(o.body),
    headers: {
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(o.cookie ? { cookie: `fieldwork_session=${o.cookie}` } : {}),
      ...(o.csrf ? { 'x-csrf-token': o.csrf } : {}),
      ...o.headers,
    },
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {}
  return { status: res.statusCode, body, headers: res.headers };
}

/** A signed-in browser: its cookie and CSRF token, and calls that carry both. */
export interface Browser {
  cookie: string;
  csrf: string;
  me: { user: { id: string; email: string; role: string }; workspace: { id: number }; workspaces: { id: number; name: string; role: string }[]; scopes: string[] };
  get(url: string): Promise<Res>;
  post(url: string, body?: unknown): Promise<Res>;
  put(url: string, body?: unknown): Promise<Res>;
  patch(url: string, body?: unknown): Promise<Res>;
  delete(url: string): Promise<Res>;
}

export function browser(app: FastifyInstance, cookie: string, me: Browser['me'] & { csrf_token: string }): Browser {
  const csrf = me.csrf_token;
  const send = (method: string) => (url: string, body?: unknown) => call(app, method, url, { cookie, csrf, body: body ?? (method === 'GET' || method === 'DELETE' ? undefined : {}) });
  return { cookie, csrf, me, get: send('GET'), post: send('POST'), put: send('PUT'), patch: send('PATCH'), delete: send('DELETE') };
}

export async function signIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<Browser> {
  const res = await call(app, 'POST', '/api/auth/sign-in', { body: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  return browser(app, cookieOf(res)!, res.body.data);
}

/** The member `userId` sets up their account through a setup link, as from the CLI; returns their signed-in browser. */
export async function setUp(app: FastifyInstance, db: Kysely<DB>, workspaceId: number, userId: string, password = PASSWORD): Promise<Browser> {
  const { url } = await mintSetupLink(db, workspaceId, userId, ORIGIN);
  const token = url.split('/').pop()!;
  const res = await call(app, 'POST', '/api/auth/setup', { body: { token, first_name: 'Pat', last_name: 'Person', password } });
  if (res.status !== 200) throw new Error(`setup: ${res.status} ${JSON.stringify(res.body)}`);
  return browser(app, cookieOf(res)!, res.body.data);
}
