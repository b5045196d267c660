import type { Kysely } from 'kysely';
import { fromJson, now, toJson } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { conflict, type Detail, invalidField, notFound, type PathSegment, ValidationError } from '../../kernel/errors.ts';
import {
  type CustomFieldRow,
  customFieldRows,
  deleteCustomFieldRow,
  type FieldDef,
  findCustomFieldRow,
  insertCustomField,
  listCustomFieldRows,
  updateCustomFieldRow,
} from './custom-fields.repo.ts';
import type { CustomField, CustomFieldQuery, CustomFieldUpdate, FieldType, ModuleType } from './custom-fields.schemas.ts';

export type { FieldDef };

export function customFieldOf(row: CustomFieldRow): CustomField {
  return {
    id: row.id,
    module_type: row.module_type,
    key: row.key,
    label: row.label,
    type: row.type,
    options: fromJson<string[]>(row.options),
    required: Boolean(row.required),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function listCustomFields(db: Kysely<DB>, workspaceId: number, q: CustomFieldQuery) {
  const { rows, pagination } = await listCustomFieldRows(db, workspaceId, q);
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

// Keys travel as JSON object keys and form field names: kept to a plain identifier.
const KEY = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The rules of a definition, for `fieldwork custom-field add` and the API alike. */
function checkDefinition(input: { key?: string; label?: string; type: string; options?: string[] | null }): void {
  const details: Detail[] = [];
  if (input.key !== undefined && !KEY.test(input.key)) details.push({ path: ['key'], message: 'must start with a letter and hold only letters, digits and _ (max 64)' });
  if (input.label !== undefined && !input.label.trim()) details.push({ path: ['label'], message: 'cannot be empty' });
  if (input.type === 'select' && input.options === null) details.push({ path: ['options'], message: 'is required for a select field' });
  if (input.type !== 'select' && input.options) details.push({ path: ['options'], message: 'applies to select fields only' });
  if (details.length) throw new ValidationError(details);
}

/** Adds a definition; 409 when the module already has the key. */
export async function addCustomField(db: Kysely<DB>, workspaceId: number, input: CustomFieldInput): Promise<CustomField> {
  checkDefinition(input);
  const at = now();
  try {
    const row = await insertCustomField(db, { ...input, label: input.label.trim(), options: toJson(input.options), required: input.required ? 1 : 0, workspace_id: workspaceId, created_at: at, updated_at: at });
    return customFieldOf(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`custom field "${input.key}" already exists on ${input.module_type}`);
    throw err;
  }
}

/**
 * A65: label, options (select fields) and `required` change; records keep their
 * values. A required field binds records created from then on (D23 checks it on create).
 */
export async function updateCustomField(db: Kysely<DB>, workspaceId: number, id: number, input: CustomFieldUpdate): Promise<CustomField> {
  const current = await findCustomFieldRow(db, workspaceId, id);
  if (!current) throw notFound('Custom field');
  if (input.options !== undefined && current.type !== 'select') throw invalidField(['options'], 'applies to select fields only');
  checkDefinition({ label: input.label, type: current.type, options: input.options });
  const row = await updateCustomFieldRow(db, workspaceId, id, {
    ...(input.label !== undefined ? { label: input.label.trim() } : {}),
    ...(input.options !== undefined ? { options: toJson(input.options) } : {}),
    ...(input.required !== undefined ? { required: input.required ? 1 : 0 } : {}),
    updated_at: now(),
  });
  if (!row) throw notFound('Custom field');
  return customFieldOf(row);
}

/** Deletes a definition; the values records hold under its key stay, no longer checked. */
export async function removeCustomField(db: Kysely<DB>, workspaceId: number, id: number): Promise<void> {
  if (!(await deleteCustomFieldRow(db, workspaceId, id))) throw notFound('Custom field');
}

// The same calendar-date shape as DateString elsewhere in the API.
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

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
  const rows = await customFieldRows(db, workspaceId, moduleType);
  validateCustomFields(rows.map(customFieldOf), value, opts);
}

/** checkCustomFields with the definitions already loaded (customFieldDefsJson, custom-fields.repo.ts). */
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
