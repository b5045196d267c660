import { type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable, sql, type Updateable } from 'kysely';
import { recordDeletions } from '../../db/deletions.ts';
import { fromJson } from '../../db/json.ts';
import { type Dialect, jsonArrayFrom, type JsonText, parseJson } from '../../db/json-helpers.ts';
import { type ListSpec, listOf } from '../../db/list-query.ts';
import type { CustomFieldsTable, DB } from '../../db/schema.ts';
import type { CustomField, CustomFieldQuery, ModuleType } from './custom-fields.schemas.ts';

export type CustomFieldRow = Selectable<CustomFieldsTable>;

const listSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', key: 'key', label: 'label', module_type: 'module_type', created_at: 'created_at', updated_at: 'updated_at' }, // A65: definitions are edited now
  search: ['key', 'label'],
};

const list = listOf(listSpec, (db, f: { ws: number; module_type?: string }) => {
  let qb = db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', f.ws);
  if (f.module_type) qb = qb.where('module_type', '=', f.module_type);
  return qb;
});

export function listCustomFieldRows(db: Kysely<DB>, workspaceId: number, q: CustomFieldQuery) {
  return list(db, { ws: workspaceId, module_type: q.module_type }, q);
}

export function insertCustomField(db: Kysely<DB>, values: Insertable<CustomFieldsTable>): Promise<CustomFieldRow> {
  return db.insertInto('custom_fields').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findCustomFieldRow(db: Kysely<DB>, workspaceId: number, id: number): Promise<CustomFieldRow | undefined> {
  return db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function updateCustomFieldRow(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<CustomFieldsTable>): Promise<CustomFieldRow | undefined> {
  return db.updateTable('custom_fields').set(values).where('workspace_id', '=', workspaceId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes a definition (records keep their values under its key); false when there is none. */
export async function deleteCustomFieldRow(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('custom_fields').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) return false;
  await recordDeletions(db, workspaceId, 'custom_fields', [id]); // E13
  return true;
}

/** The module's definitions, in the order they were defined. */
export function customFieldRows(db: Kysely<DB>, workspaceId: number, moduleType: ModuleType): Promise<CustomFieldRow[]> {
  return db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId).where('module_type', '=', moduleType).execute();
}

/** What validation needs of a definition. */
export type FieldDef = Pick<CustomField, 'key' | 'type' | 'options' | 'required'>;
interface FieldDefRow {
  key: string;
  type: string;
  options: string | string[] | null;
  required: number | boolean;
}

/**
 * The module's definitions as a JSON subquery, so a write can load them in the
 * statement that loads its references (one round trip); read them with `fieldDefsOf`.
 * `null` for moduleType selects a null (the write needs no definitions).
 */
export function customFieldDefsJson(
  eb: Pick<ExpressionBuilder<DB, never>, 'selectFrom'>,
  dialect: Dialect,
  workspaceId: number,
  moduleType: ModuleType | null,
): RawBuilder<JsonText<FieldDefRow[]> | null> {
  if (moduleType === null) return sql<null>`null`; // not needed by this write
  return jsonArrayFrom(
    dialect,
    eb
      .selectFrom('custom_fields')
      .select(['custom_fields.key', 'custom_fields.type', 'custom_fields.options', 'custom_fields.required'])
      .where('custom_fields.workspace_id', '=', workspaceId)
      .where('custom_fields.module_type', '=', moduleType)
      .orderBy('custom_fields.id'),
  );
}

/** Parses customFieldDefsJson: `options` arrives nested on PostgreSQL (jsonb) and as text on SQLite. */
export function fieldDefsOf(text: JsonText<FieldDefRow[]> | null): FieldDef[] {
  return (parseJson(text) ?? []).map((r) => ({
    key: r.key,
    type: r.type,
    options: typeof r.options === 'string' ? fromJson<string[]>(r.options) : r.options,
    required: Boolean(r.required),
  }));
}
