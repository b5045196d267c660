import type { Kysely, Selectable } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
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
  sort: { id: 'id', key: 'key', label: 'label', module_type: 'module_type', created_at: 'created_at' },
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

/** Why `value` does not fit the definition, or null when it does. */
function mismatch(def: CustomField, value: unknown): string | null {
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
export async function checkCustomFields(
  db: Kysely<DB>,
  workspaceId: number,
  moduleType: ModuleType,
  value: unknown,
  { create, pathPrefix = ['custom_fields'] }: { create: boolean; pathPrefix?: PathSegment[] },
): Promise<void> {
  if (value === undefined && !create) return;
  const rows = await db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId).where('module_type', '=', moduleType).execute();
  if (rows.length === 0) return;
  const defs = new Map(rows.map((r) => [r.key, customFieldOf(r)]));
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
