import { actsAsMember } from '../../http/roles.ts';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { notFound } from '../../kernel/errors.ts';

// The entities uploads and comments attach to (SPEC Uploads 4, D32): one table,
// one scope prefix and one not-found name per `module_type`.

export const MODULE_TYPES = ['contact', 'request', 'quote', 'job', 'invoice', 'event', 'timesheet'] as const;
export type ModuleType = (typeof MODULE_TYPES)[number];

interface Parent {
  table: string;
  scope: string;
  name: string;
}

const PARENTS: Record<ModuleType, Parent> = {
  contact: { table: 'contacts', scope: 'contacts', name: 'Contact' },
  request: { table: 'requests', scope: 'requests', name: 'Request' },
  quote: { table: 'quotes', scope: 'quotes', name: 'Quote' },
  job: { table: 'jobs', scope: 'jobs', name: 'Job' },
  invoice: { table: 'invoices', scope: 'invoices', name: 'Invoice' },
  event: { table: 'events', scope: 'events', name: 'Event' },
  timesheet: { table: 'timesheets', scope: 'timesheets', name: 'Timesheet' },
};

export const isModuleType = (value: string): value is ModuleType => (MODULE_TYPES as readonly string[]).includes(value);

/** The parent's scope prefix: `quote` -> `quotes` (E13: an upload's deletion entry is read with it). */
export const parentScopePrefix = (type: ModuleType) => PARENTS[type].scope;

/** A14: adding an upload or comment needs the parent's write scope; a member's session, its read scope. */
export const attachScope = (auth: { role?: string }, type: ModuleType) => parentScope(type, actsAsMember(auth) ? 'read' : 'write');
/** Every parent's scope prefix: the scopes an upload or comment route may ask for (E16's `x-scopes`). */
export const PARENT_SCOPE_PREFIXES: readonly string[] = MODULE_TYPES.map(parentScopePrefix);

/** SPEC Uploads 4: `quote` + write -> `quotes:write`. */
export const parentScope = (type: ModuleType, access: 'read' | 'write') => `${PARENTS[type].scope}:${access}`;

/** D32: a parent that is not in the caller's workspace is 404 with the parent's own text. */
export async function requireParent(db: Kysely<DB>, workspaceId: number, type: ModuleType, id: number): Promise<void> {
  const { table, name } = PARENTS[type];
  const found = await sql<{ id: number }>`select id from ${sql.table(table)} where workspace_id = ${workspaceId} and id = ${id}`.execute(db);
  if (!found.rows.length) throw notFound(name);
}

/** The user who created the parent (`comments_new`), where its table records one. */
export async function parentCreator(db: Kysely<DB>, workspaceId: number, type: ModuleType, id: number): Promise<string | null> {
  const { table } = PARENTS[type];
  const found = await sql<{ created_by: string | null }>`select created_by from ${sql.table(table)} where workspace_id = ${workspaceId} and id = ${id}`.execute(
    db,
  );
  return found.rows[0]?.created_by ?? null;
}
