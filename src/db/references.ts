import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';
import { type Detail, ValidationError } from '../kernel/errors.ts';

/** Tables a body may reference by integer id (D11). */
export type RefTable = 'contacts' | 'properties' | (string & {});

export interface References {
  /** field -> [table, id or ids]; null/undefined values are skipped. */
  ids?: Record<string, [RefTable, number | number[] | null | undefined]>;
  /** field -> user UUID or UUIDs that must be members of the workspace. */
  users?: Record<string, string | string[] | null | undefined>;
}

/**
 * D11: every referenced id and user UUID must exist in the caller's workspace;
 * another workspace's id is treated exactly like an absent one. One query per
 * field given, none per row. Throws a ValidationError naming each bad field.
 */
export async function checkReferences(db: Kysely<DB>, workspaceId: number, refs: References): Promise<void> {
  const details: Detail[] = [];
  for (const [field, [table, value]] of Object.entries(refs.ids ?? {})) {
    if (value === null || value === undefined) continue;
    const wanted = [...new Set(Array.isArray(value) ? value : [value])];
    if (!wanted.length) continue;
    const rows = await sql<{ id: number }>`select id from ${sql.table(table)} where workspace_id = ${workspaceId} and id in (${sql.join(wanted)})`.execute(db);
    const found = new Set(rows.rows.map((r) => Number(r.id)));
    for (const id of wanted) {
      if (!found.has(id)) details.push({ path: Array.isArray(value) ? [field, value.indexOf(id)] : [field], message: `${field} ${id} does not exist` });
    }
  }
  for (const [field, value] of Object.entries(refs.users ?? {})) {
    if (value === null || value === undefined) continue;
    const wanted = [...new Set(Array.isArray(value) ? value : [value])];
    if (!wanted.length) continue;
    const rows = await db.selectFrom('users').select('user_id').where('workspace_id', '=', workspaceId).where('user_id', 'in', wanted).execute();
    const found = new Set(rows.map((r) => r.user_id));
    for (const uuid of wanted) {
      if (!found.has(uuid)) details.push({ path: Array.isArray(value) ? [field, value.indexOf(uuid)] : [field], message: `user ${uuid} is not a member of this workspace` });
    }
  }
  if (details.length) throw new ValidationError(details);
}

/** user UUID -> `{id, first_name, last_name}` for the expanded single GETs, in one query. */
export async function userRefs(db: Kysely<DB>, workspaceId: number, uuids: (string | null | undefined)[]) {
  const wanted = [...new Set(uuids.filter((u): u is string => Boolean(u)))];
  const map = new Map<string, { id: string; first_name: string | null; last_name: string | null; email: string }>();
  if (!wanted.length) return map;
  const rows = await db
    .selectFrom('users')
    .select(['user_id', 'first_name', 'last_name', 'email'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', 'in', wanted)
    .execute();
  for (const r of rows) map.set(r.user_id, { id: r.user_id, first_name: r.first_name, last_name: r.last_name, email: r.email });
  return map;
}
