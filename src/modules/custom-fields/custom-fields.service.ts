import { type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import { type Dialect, jsonArrayFrom, type JsonText, parseJson } from '../../db/json-helpers.ts';
import type { CustomFieldsTable, DB } from '../../db/schema.ts';
import { type Detail, type PathSegment, ValidationError } from '../../kernel/errors.ts';
import { type ListSpec, paginate } from '../../db/list-query.ts';
import type { CustomField, CustomFieldQuery, FieldType, ModuleType } from './custom-fields.schemas.ts';

export function customFieldOf(row: Selectable<CustomFieldsTable>): CustomField {
  return {
    id: row.id,
    module_type: row.module_type,
    key: row.key,
    label: row.label,
    type: row.type,
    options: fromJson<string[]>(row.options),
    required: Boolean(row.required),
    created_at: row.created_at,
  };
}

const listSpec: ListSpec = {
  id: 'id',
  sort: { id: 'id', key: 'key', label: 'label', module_type: 'module_type', created_at: 'created_at', updated_at: 'created_at' }, // F81: definitions are never edited
  search: ['key', 'label'],
};

export async function listCustomFields(db: Kysely<DB>, workspaceId: number, q: CustomFieldQuery) {
  let qb = db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId);
  if (q.module_type) qb = qb.where('module_type', '=', q.module_type);
  const { rows, pagination } = await paginate(qb, q, listSpec);
  return { rows: rows.map(customFieldOf), pagination };
}

export interface CustomFieldInput {
  module_type: ModuleType;
  key: string;
  label: string;
  type: FieldType;
  options: string[] | null;
  required: boolean;
}

export async function addCustomField(db: Kysely<DB>, workspaceId: number, input: CustomFieldInput): Promise<CustomField> {
  const row = await db
    .insertInto('custom_fields')
    .values({ ...input, options: toJson(input.options), required: input.required ? 1 : 0, workspace_id: workspaceId, created_at: now() })
    .returningAll()
    .executeTakeFirstOrThrow();
  return customFieldOf(row);
}

// The same calendar-date shape as DateString elsewhere in the API.
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

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

/** Why `value` does not fit the definition, or null when it does. */
function mismatch(def: FieldDef, value: unknown): string | null {
  switch (def.type) {
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return typeof value === 'string' && DATE.test(value) ? null : 'must be a date (YYYY-MM-DD)';
    case 'select':
      return typeof value === 'string' && (def.options ?? []).includes(value) ? null : `must be one of: ${(def.options ?? []).join(', ')}`;
    default:
      return null;
  }
}

/**
 * D23, the one validator of `custom_fields` (records) and `customFields` (the
 * form): unknown keys, wrong types, select values outside the options and, on
 * create, missing required fields fail with details naming the key. A
 * workspace without definitions for the module accepts anything (SPEC types custom_fields as "any").
 * `null` is accepted for an optional field (it clears it, like any nullable field).
 */
export interface CheckOptions {
  create: boolean;
  pathPrefix?: PathSegment[];
}

export async function checkCustomFields(db: Kysely<DB>, workspaceId: number, moduleType: ModuleType, value: unknown, opts: CheckOptions): Promise<void> {
  if (value === undefined && !opts.create) return;
  const rows = await db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId).where('module_type', '=', moduleType).execute();
  validateCustomFields(rows.map(customFieldOf), value, opts);
}

/** checkCustomFields with the definitions already loaded (customFieldDefsJson). */
export function validateCustomFields(definitions: FieldDef[], value: unknown, { create, pathPrefix = ['custom_fields'] }: CheckOptions): void {
  if (value === undefined && !create) return;
  if (definitions.length === 0) return;
  const defs = new Map(definitions.map((d) => [d.key, d]));
  if (value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw new ValidationError([{ path: pathPrefix, message: 'must be an object' }]);
  }
  const given = (value ?? {}) as Record<string, unknown>;
  const details: Detail[] = [];
  for (const [key, v] of Object.entries(given)) {
    const def = defs.get(key);
    if (!def) details.push({ path: [...pathPrefix, key], message: 'is not a custom field of this workspace' });
    else if (v === null) {
      if (def.required) details.push({ path: [...pathPrefix, key], message: 'is required' });
    } else {
      const why = mismatch(def, v);
      if (why) details.push({ path: [...pathPrefix, key], message: why });
    }
  }
  if (create) {
    for (const def of defs.values()) {
      if (def.required && !(def.key in given)) details.push({ path: [...pathPrefix, def.key], message: 'is required' });
    }
  }
  if (details.length) throw new ValidationError(details);
}
