import type { Kysely } from 'kysely';
import { fromJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';

/** The workspace's key hash: the form's rate limit counts per workspace by it. */
export function workspaceHash(db: Kysely<DB>, workspaceId: number): Promise<{ hash: string } | undefined> {
  return db.selectFrom('workspaces').select('hash').where('id', '=', workspaceId).executeTakeFirst();
}

/** D23: the request custom fields the website form shows, in the order they were defined. */
export async function formFieldDefinitions(db: Kysely<DB>, workspaceId: number) {
  const rows = await db
    .selectFrom('custom_fields')
    .select(['key', 'label', 'type', 'options', 'required'])
    .where('workspace_id', '=', workspaceId)
    .where('module_type', '=', 'request')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ key: r.key, label: r.label, type: r.type, options: fromJson<string[]>(r.options), required: Boolean(r.required) }));
}
