import { type Static, Type } from 'typebox';
import { Id, Nullable, Timestamp } from '../../kernel/schemas.ts';
import { IMPORT_KINDS } from './import-fields.ts';

export const ImportError = Type.Object({
  row: Type.Integer({ description: 'The line of the file the row ends on (the header is line 1)' }),
  field: Type.String({ description: 'The import field (`email`, `city`, ...), or `row`' }),
  message: Type.String({ description: "The API's own message for the field" }),
});

export const Import = Type.Object({
  id: Id,
  kind: Type.Enum([...IMPORT_KINDS]),
  status: Type.Enum(['queued', 'running', 'done', 'failed']),
  dry_run: Type.Boolean(),
  rows: Type.Integer({ description: 'Data rows in the file (0 until counted)' }),
  processed: Type.Integer({ description: 'Rows done so far: the progress' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  errors: Type.Array(ImportError, { description: 'The skipped rows, each failing field once; at most the first 1,000' }),
  failure: Nullable(Type.String({ description: 'Why a failed import stopped' })),
  created_at: Timestamp,
  finished_at: Nullable(Timestamp),
});
export type Import = Static<typeof Import>;

/** The multipart form, for the OpenAPI document (the handler reads the stream). */
export const ImportForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'A CSV file, at most 20 MB: UTF-8 (with or without BOM) or Windows-1252, `,` or `;`' }),
  kind: Type.Enum([...IMPORT_KINDS]),
  mapping: Type.Optional(
    Type.String({ description: 'JSON `{"column header": "field"}`; a field of null skips the column. Without it headers are matched by name' }),
  ),
  dry_run: Type.Optional(Type.Enum(['true', 'false'], { description: '`true`: write nothing, report what would happen' })),
});
