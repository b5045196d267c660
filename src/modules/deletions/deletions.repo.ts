import type { Kysely } from 'kysely';
import { type ListSpec, listOf, storedInstant } from '../../db/list-query.ts';
import type { DB } from '../../db/schema.ts';

// Oldest first; `created_at`/`updated_at` are the one timestamp a deletion has.
const listSpec: ListSpec = { id: 'id', sort: { deleted_at: 'deleted_at', created_at: 'deleted_at', updated_at: 'deleted_at' } };

const list = listOf(listSpec, (db, f: { ws: number; since?: string; resources: string[] | null; scopes: string[] | null }) => {
  let qb = db.selectFrom('deletions').select(['resource', 'resource_id', 'deleted_at']).where('workspace_id', '=', f.ws);
  if (f.since !== undefined) qb = qb.where('deleted_at', '>=', f.since);
  if (f.resources) qb = qb.where('resource', 'in', f.resources);
  if (f.scopes) qb = qb.where('scope', 'in', f.scopes);
  return qb;
});

/** `scopes` null: every entry (a key with `read`); else only entries with one of these read scopes. */
export async function listDeletions(
  db: Kysely<DB>,
  workspaceId: number,
  q: { page?: number; per_page?: number; sort_direction?: 'asc' | 'desc'; since?: string; resources: string[] | null; scopes: string[] | null },
) {
  const filters = { ws: workspaceId, since: q.since === undefined ? undefined : storedInstant(q.since), resources: q.resources, scopes: q.scopes };
  const page = await list(db, filters, { page: q.page, per_page: q.per_page, sort_by: 'deleted_at', sort_direction: q.sort_direction ?? 'asc' });
  return { rows: page.rows.map((r) => ({ resource: r.resource, id: r.resource_id, deleted_at: r.deleted_at })), pagination: page.pagination };
}
