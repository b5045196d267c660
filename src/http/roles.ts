import { AppError } from '../kernel/errors.ts';

// APP.md A1 "Roles -> what a session may do": a session's scopes come from its
// member's role, read on every request (a changed role applies at once); a key
// keeps its own. The scopes are the keys' scopes, so `requireScope` and every
// route check a session exactly as they check a key (A11).

import { SESSION_ONLY_SCOPES } from './auth.ts';

export const ROLES = ['owner', 'admin', 'manager', 'member'] as const;
export type Role = (typeof ROLES)[number];

const both = (names: string[]) => names.flatMap((s) => [`${s}:read`, `${s}:write`]);

export const ROLE_SCOPES: Record<Role, readonly string[]> = {
  // `read` and `write` grant every `<x>:read` and `<x>:write` (hasScope).
  // Team and key management (A5) have scopes no key can hold (SESSION_ONLY_SCOPES, auth.ts; A60).
  owner: ['read', 'write', ...SESSION_ONLY_SCOPES],
  admin: ['read', 'write', ...SESSION_ONLY_SCOPES],
  // Every SPEC and E resource; no webhooks (team, keys and workspace settings have no key scope at all).
  manager: [
    ...both(['contacts', 'properties', 'requests', 'quotes', 'jobs', 'invoices', 'events', 'timesheets', 'services', 'tax-rates', 'quote-templates', 'forms']),
    'custom_fields:read',
    'users:read',
    'workspace:read',
    'notifications:write',
    'reports:read', // E27
  ],
  // Reads what the field needs, no prices; events:write and timesheets:write are narrowed
  // to their own visits and time entries by the services (A14).
  member: [
    'contacts:read',
    'properties:read',
    'requests:read',
    'jobs:read',
    'events:read',
    'events:write',
    'timesheets:read',
    'timesheets:write',
    'custom_fields:read',
    'users:read',
    'workspace:read',
  ],
};

export const scopesOfRole = (role: string): readonly string[] => ROLE_SCOPES[role as Role] ?? [];

/** A1: the refusal of a record the role may not change (another member's time entry, a visit not theirs). */
export const forbidden = () => new AppError(403, 'Forbidden');

/**
 * A14: a member's session acts only on its own visits and time entries, sees no
 * prices, and may add uploads and comments to what it can read. Keys and the
 * other roles are not narrowed.
 */
export const actsAsMember = (auth: { role?: string }): boolean => auth.role === 'member';

/** Forbidden unless a member's session is the record's user (UUIDs compare in lower case). */
export function requireOwn(auth: { role?: string; userId: string }, ownerUserId: string | null): void {
  if (actsAsMember(auth) && ownerUserId?.toLowerCase() !== auth.userId.toLowerCase()) throw forbidden();
}
