import type { Kysely } from 'kysely';
import { type ListSpec, paginate, storedInstant } from '../../db/list-query.ts';
import type { DB } from '../../db/schema.ts';

// Oldest first; `created_at`/`updated_at` are the one timestamp a deletion has.
const listSpec: ListSpec = { id: 'id', sort: { deleted_at: 'deleted_at', created_at: 'deleted_at', updated_at: 'deleted_at' } };

/** `scopes` null: every entry (a key with `read`); else only entries with one of these read scopes. */
export async function listDeletions(
  db: Kysely<DB>,
  workspaceId: number,
  q: { page?: number; per_page?: number; since?: string; resources: string[] | null; scopes: string[] | null },
) {
  let qb = db.selectFrom('deletions').select(['resource', 'resource_id', 'deleted_at']).where('workspace_id', '=', workspaceId);
  if (q.since !== undefined) qb = qb.where('deleted_at', '>=', storedInstant(q.since));
  if (q.resources) qb = qb.where('resource', 'in', q.resources);
  if (q.scopes) qb = qb.where('scope', 'in', q.scopes);
  const page = await paginate(qb, { page: q.page, per_page: q.per_page, sort_by: 'deleted_at', sort_direction: 'asc' }, listSpec);
  return { rows: page.rows.map((r) => ({ resource: r.resource, id: r.resource_id, deleted_at: r.deleted_at })), pagination: page.pagination };
}
