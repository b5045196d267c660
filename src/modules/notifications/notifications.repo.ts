import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The contacts of `ids` in the workspace, with what a message needs. */
export function contactsForMessage(db: Kysely<DB>, workspaceId: number, ids: number[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('contacts')
    .select(['id', 'first_name', 'last_name', 'email', 'phone', 'info'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}

/** The contact and property of an event's job or request (D19). */
export async function parentLinks(db: Kysely<DB>, workspaceId: number, table: 'jobs' | 'requests', id: number | null) {
  if (id === null) return undefined;
  return db.selectFrom(table).select(['contact_id', 'property_id']).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}
