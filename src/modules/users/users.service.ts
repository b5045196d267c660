import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { findWorkspace } from '../workspace/workspace.repo.ts';
import { INTERNAL_NOTIFICATIONS } from '../workspace/workspace.service.ts';
import { conflict } from '../../kernel/errors.ts';
import { fromCents } from '../../domain/money.ts';
import { hasScope } from '../../domain/scopes.ts';
import { countOwners, emailTaken, findUser, insertUser, updateUser, type UserRow } from './users.repo.ts';

import { ROLES, type Role } from '../../http/roles.ts';

export { ROLES, type Role };
export type Preferences = Record<string, boolean>;

/** The SPEC User object. */
export function userView(u: Pick<UserRow, 'id' | 'user_id' | 'first_name' | 'last_name' | 'email' | 'role' | 'job_title'>) {
  return { id: u.id, user_id: u.user_id, first_name: u.first_name, last_name: u.last_name, email: u.email, role: u.role, job_title: u.job_title };
}

/** E26: who may read members' `cost_rate`: the callers that may read the reports. */
export const seesCosts = (auth: { scopes: readonly string[] }): boolean => hasScope(auth.scopes, 'reports:read');

/** The User object as `auth` may read it: `cost_rate` (money per hour, null when unset) only for those who see costs (E26). */
export function userViewFor(auth: { scopes: readonly string[] }, u: Pick<UserRow, 'id' | 'user_id' | 'first_name' | 'last_name' | 'email' | 'role' | 'job_title' | 'cost_rate_cents'>) {
  const view = userView(u);
  return seesCosts(auth) ? { ...view, cost_rate: u.cost_rate_cents === null ? null : fromCents(u.cost_rate_cents) } : view;
}

export interface NewUser {
  email: string;
  first_name?: string;
  last_name?: string;
  role?: Role;
  job_title?: string;
}

export async function addUser(db: Kysely<DB>, workspaceId: number, input: NewUser) {
  if (!(await findWorkspace(db, workspaceId))) throw new Error(`workspace ${workspaceId} not found`);
  const email = input.email.toLowerCase();
  if (await emailTaken(db, workspaceId, email)) throw conflict(`${email} is already a member of this workspace`);
  const at = now();
  return insertUser(db, {
      workspace_id: workspaceId,
      user_id: randomUUID(),
      email,
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      phone: null,
      role: input.role ?? 'member',
      job_title: input.job_title ?? null,
      preferences: toJson({}),
      created_at: at,
      updated_at: at,
  });
}

const USER_FIELDS = ['first_name', 'last_name', 'role', 'job_title'] as const;

/** `user set KEY=VALUE...`: user fields, or `notify.<name>` preferences. */
export async function setUser(db: Kysely<DB>, workspaceId: number, userId: string, pairs: Record<string, string>) {
  const user = await findUser(db, workspaceId, userId);
  if (!user) throw new Error(`user ${userId} is not a member of workspace ${workspaceId}`);
  const fields: { role?: string; first_name?: string | null; last_name?: string | null; job_title?: string | null } = {};
  const prefs = fromJson<Preferences>(user.preferences) ?? {};
  for (const [key, raw] of Object.entries(pairs)) {
    if ((USER_FIELDS as readonly string[]).includes(key)) {
      if (key === 'role' && !(ROLES as readonly string[]).includes(raw)) throw new Error(`role must be one of ${ROLES.join(', ')}`);
      // A1: the last owner cannot be demoted (CLI and API alike).
      if (key === 'role' && raw !== 'owner' && user.role === 'owner' && (await countOwners(db, workspaceId)) < 2) {
        throw conflict('The last owner of a workspace cannot be demoted');
      }
      if (key === 'role') fields.role = raw;
      else fields[key as 'first_name' | 'last_name' | 'job_title'] = raw === '' ? null : raw;
    } else if (key.startsWith('notify.') && (INTERNAL_NOTIFICATIONS as readonly string[]).includes(key.slice('notify.'.length))) {
      if (raw !== 'true' && raw !== 'false') throw new Error(`${key} must be true or false`);
      prefs[key.slice('notify.'.length)] = raw === 'true';
    } else throw new Error(`unknown user setting "${key}"`);
  }
  const updated = await updateUser(db, user.id, { ...fields, preferences: toJson(prefs), updated_at: now() });
  return { user: updated, preferences: prefs };
}
