import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Str, Timestamp } from '../../kernel/schemas.ts';

/** D23: the modules that carry `custom_fields`, and the value types a definition may have. */
export const MODULE_TYPES = ['contact', 'request', 'quote', 'job', 'invoice'] as const;
export const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'] as const;
export type ModuleType = (typeof MODULE_TYPES)[number];
export type FieldType = (typeof FIELD_TYPES)[number];

export const CustomField = Type.Object({
  id: Id,
  module_type: Type.String(),
  key: Type.String(),
  label: Type.String(),
  type: Type.String(),
  options: Nullable(Type.Array(Type.String())),
  required: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type CustomField = Static<typeof CustomField>;

export const CUSTOM_FIELD_SORT = ['id', 'key', 'label', 'module_type', 'created_at'] as const;
export const CustomFieldQuery = listQuery(CUSTOM_FIELD_SORT, {
  module_type: Type.Optional(Type.Enum([...MODULE_TYPES])),
});
export type CustomFieldQuery = Static<typeof CustomFieldQuery>;

const Options = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true });

/** A65: what `fieldwork custom-field add` takes; the service checks key, label and options the same way for both. */
export const CustomFieldCreate = Type.Object({
  module_type: Type.Enum([...MODULE_TYPES]),
  key: Type.String({ minLength: 1, maxLength: 64 }),
  label: Str(255),
  type: Type.Enum([...FIELD_TYPES]),
  options: Type.Optional(Nullable(Options)),
  required: Type.Optional(Type.Boolean()),
});
export type CustomFieldCreate = Static<typeof CustomFieldCreate>;

/** The key, module and type stay (records hold values under the key, typed by it). */
export const CustomFieldUpdate = Type.Object({
  label: Type.Optional(Str(255)),
  options: Type.Optional(Options),
  required: Type.Optional(Type.Boolean()),
});
export type CustomFieldUpdate = Static<typeof CustomFieldUpdate>;
