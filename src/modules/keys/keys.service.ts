import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { fromJson, now, toJson } from '../../db/json.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import { findUser, firstOwner } from '../users/users.repo.ts';
import { findWorkspace } from '../workspace/workspace.repo.ts';
import { findKeyRow, insertKey, listKeyPage, listKeyRows, revokeKeyRow } from './keys.repo.ts';
import type { ApiKey, KeyQuery } from './keys.schemas.ts';

export const KEY_TYPES = ['general', 'rest', 'embed_forms', 'automation', 'plugin'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** SPEC "Key types and default scopes". `rest` keys get only what they are given. */
export const DEFAULT_SCOPES: Record<KeyType, string[]> = {
  general: ['read', 'write'],
  rest: [],
  embed_forms: ['forms:read', 'forms:write', 'webhooks:read'],
  automation: ['forms:read', 'forms:write', 'webhooks:read', 'webhooks:write'],
  plugin: ['custom_fields:read', 'forms:read', 'forms:write'],
};

/** Every scope an endpoint can require (SPEC "Scopes" and the ones it names without listing). */
export const ALL_SCOPES = [
  ...['contacts', 'requests', 'quotes', 'jobs', 'invoices', 'events', 'timesheets', 'properties', 'webhooks', 'forms'].flatMap(
    (s) => [`${s}:read`, `${s}:write`],
  ),
  'custom_fields:read',
  ...['quote-templates', 'services', 'tax-rates'].flatMap((s) => [`${s}:read`, `${s}:write`]),
  'users:read',
  'workspace:read',
  'notifications:write',
  // A60: the settings API's writes and the message log.
  'workspace:write',
  'custom_fields:write',
  'notifications:read',
  // E27: the reports (and E26's costs beside them); a general key's `read` grants it.
  'reports:read',
  // E28/E29: the whole-workspace export; a general key's `read` and `write` grant them.
  'exports:read',
  'exports:write',
  'read',
  'write',
];

export interface CreatedKey {
  id: number;
  token: string;
  type: KeyType;
  scopes: string[];
  user_id: string | null;
  workspace_id: number;
}

export async function createKey(
  db: Kysely<DB>,
  input: { workspaceId: number; type: KeyType; scopes?: string[]; userId?: string | null; name?: string; legacy?: boolean },
): Promise<CreatedKey> {
  const ws = await findWorkspace(db, input.workspaceId);
  if (!ws) throw notFound('Workspace');
  const scopes = input.scopes ?? DEFAULT_SCOPES[input.type];
  // SESSION_ONLY_SCOPES (src/http/auth.ts) are not in ALL_SCOPES: no key can hold them.
  const unknown = scopes.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) throw invalidField(['scopes'], `unknown scope(s): ${unknown.join(', ')}`);
  let userId: string | null;
  if (input.userId === null) userId = null;
  else if (input.userId) {
    const user = await findUser(db, ws.id, input.userId);
    if (!user) throw invalidField(['user_id'], `user ${input.userId} is not a member of workspace ${ws.id}`);
    userId = user.user_id;
  } else {
    // The key's user defaults to the workspace owner (docs/operator.md); a key without a user
    // is only ever made on purpose (--unlinked), never because no owner was found.
    const owner = await firstOwner(db, ws.id);
    if (!owner) throw new Error(`workspace ${ws.id} has no owner: name the key's user`);
    userId = owner;
  }
  // 256-bit secret; only its hash is stored, the token is shown once.
  const secret = randomBytes(32).toString('hex');
  const token = input.legacy ? secret : `wk_${ws.hash}.${secret}`;
  const at = now();
  const id = await insertKey(db, {
      workspace_id: ws.id,
      type: input.type,
      scopes: toJson(scopes)!,
      user_id: userId,
      name: input.name ?? null,
      token_hash: hashToken(token),
      legacy: input.legacy ? 1 : 0,
      created_at: at,
      updated_at: at,
  });
  return { id, token, type: input.type, scopes, user_id: userId, workspace_id: ws.id };
}

export async function listKeys(db: Kysely<DB>, workspaceId: number) {
  const rows = await listKeyRows(db, workspaceId);
  return rows.map((r) => ({ ...r, scopes: fromJson<string[]>(r.scopes) ?? [] }));
}

/**
 * Returns null when no such key exists (in `workspaceId`, when given: the API's
 * revocation; the CLI names any key). Revoking twice keeps the first time.
 * `token_hash` lets the caller drop the key from its own process's cache at once.
 */
export async function revokeKey(db: Kysely<DB>, keyId: number, workspaceId?: number): Promise<{ id: number; revoked_at: string; token_hash: string } | null> {
  const row = await revokeKeyRow(db, keyId, now(), workspaceId);
  return row ? { id: row.id, revoked_at: row.revoked_at!, token_hash: row.token_hash } : null;
}

type KeyRow = Omit<ApiKey, 'scopes'> & { scopes: string };
const keyView = (r: KeyRow): ApiKey => ({ ...r, scopes: fromJson<string[]>(r.scopes) ?? [] });

/** GET /keys (A5): a page of the workspace's keys, never a token. */
export async function listKeysPage(db: Kysely<DB>, workspaceId: number, q: KeyQuery) {
  const { rows, pagination } = await listKeyPage(db, workspaceId, q);
  return { rows: rows.map(keyView), pagination };
}

/** One key as the list shows it; 404 `API key not found` outside the workspace. */
export async function getKey(db: Kysely<DB>, workspaceId: number, keyId: number): Promise<ApiKey> {
  const row = await findKeyRow(db, workspaceId, keyId);
  if (!row) throw notFound('API key');
  return keyView(row);
}
