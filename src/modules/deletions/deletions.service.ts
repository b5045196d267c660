import type { Kysely } from 'kysely';
import { DELETED_RESOURCES, DELETION_SCOPES, type DeletedResource } from '../../db/deletions.ts';
import type { DB } from '../../db/schema.ts';
import type { AuthContext } from '../../http/auth.ts';
import { csv } from '../../kernel/schemas.ts';
import { invalidField } from '../../kernel/errors.ts';
import { MODULE_TYPES, parentScopePrefix } from '../uploads/parents.ts';
import type { Deletion, DeletionQuery } from './deletions.schemas.ts';
import { listDeletions } from './deletions.repo.ts';

/** Every read scope an entry can carry: the resources' own and the upload parents'. */
export const DELETION_READ_SCOPES = [
  ...new Set([...Object.values(DELETION_SCOPES).filter((s) => s !== null), ...MODULE_TYPES.map(parentScopePrefix)].map((p) => `${p}:read`)),
];

const isResource = (name: string): name is DeletedResource => (DELETED_RESOURCES as readonly string[]).includes(name);

/**
 * E13: the feed, oldest first. A key sees the entries whose `<x>:read` it has
 * (`read` sees all); `resource` narrows it, an unknown name is a validation error.
 */
export async function deletionsFeed(db: Kysely<DB>, auth: AuthContext, q: DeletionQuery): Promise<{ rows: Deletion[]; pagination: { page: number; per_page: number; total_pages: number } }> {
  let resources: DeletedResource[] | null = null;
  if (q.resource !== undefined) {
    const names = csv(q.resource);
    const unknown = names.filter((n) => !isResource(n));
    if (unknown.length || !names.length) throw invalidField(['resource'], `unknown resource${unknown.length > 1 ? 's' : ''} ${unknown.join(', ') || '(none given)'}; must be one of: ${DELETED_RESOURCES.join(', ')}`);
    resources = names.filter(isResource);
  }
  const scopes = auth.scopes.includes('read') ? null : DELETION_READ_SCOPES.filter((s) => auth.scopes.includes(s));
  const page = await listDeletions(db, auth.workspaceId, { page: q.page, per_page: q.per_page, sort_direction: q.sort_direction, since: q.since, resources, scopes });
  return { rows: page.rows.filter((r): r is Deletion => isResource(r.resource)), pagination: page.pagination };
}
