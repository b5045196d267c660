import type { Kysely } from 'kysely';
import { fromJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';

export async function workspaceExists(db: Kysely<DB>, workspaceId: number): Promise<boolean> {
  return Boolean(await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst());
}

/** The workspace's hash (the form's rate-limit key), or undefined when it is gone. */
export async function workspaceHash(db: Kysely<DB>, workspaceId: number): Promise<string | undefined> {
  return (await db.selectFrom('workspaces').select('hash').where('id', '=', workspaceId).executeTakeFirst())?.hash;
}

/**
 * SPEC Internal request creation 1: the workspace's contact with this email
 * (case-insensitive), else with this phone (as typed), oldest first.
 */
export async function matchContact(trx: Kysely<DB>, workspaceId: number, email?: string, phone?: string): Promise<number | null> {
  const base = trx.selectFrom('contacts').select('id').where('workspace_id', '=', workspaceId).orderBy('id', 'asc').limit(1);
  if (email) {
    const byEmail = await base.where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
    if (byEmail) return byEmail.id;
  }
  if (phone?.trim()) {
    const byPhone = await base.where('phone', '=', phone.trim()).executeTakeFirst();
    if (byPhone) return byPhone.id;
  }
  return null;
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
