import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Timestamp } from '../../kernel/schemas.ts';
import { MODULE_TYPES } from './parents.ts';

export const CATEGORIES = ['attachment', 'internal', 'public', 'expense'] as const;

const ModuleType = Type.Enum([...MODULE_TYPES]);
const Category = Type.Enum([...CATEGORIES]);
// Display names: printable, no path separators (the same rule as file names).
const DisplayName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\\\u0000-\\u001f\\u007f]+$' });
const Description = Type.String({ maxLength: 2000 });

/** The text parts of `POST /uploads` (validated with coercion: multipart values are text). */
export const UploadFields = Type.Object({
  module_type: ModuleType,
  module_id: Id,
  category: Type.Optional(Category),
  name: Type.Optional(DisplayName),
  description: Type.Optional(Description),
  is_public: Type.Optional(Type.Boolean()),
});
export type UploadFields = Static<typeof UploadFields>;

/** The whole form, for the OpenAPI document (the handler streams it; see uploads.routes.ts). */
export const UploadForm = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'the file, at most 5 MB; JPEG, PNG, WebP, PDF, DOC, DOCX, CSV, XLS or XLSX' }),
    module_type: ModuleType,
    module_id: { ...Id, description: 'the parent; must exist in the workspace' },
    category: Type.Optional({ ...Category, default: 'attachment' }),
    name: Type.Optional({ ...DisplayName, description: 'display name; default: the original file name' }),
    description: Type.Optional(Description),
    is_public: Type.Optional(Type.Boolean({ default: false, description: 'public bucket with a permanent unauthenticated URL' })),
  },
  { required: ['file', 'module_type', 'module_id'] },
);

export const UploadUpdate = Type.Object({
  name: Type.Optional(DisplayName),
  description: Type.Optional(Nullable(Description)),
  category: Type.Optional(Category),
});
export type UploadUpdate = Static<typeof UploadUpdate>;

export const UploadQuery = listQuery(['created_at', 'link_created_at', 'name'], {
  module_type: ModuleType,
  module_id: Id,
  category: Type.Optional(Category),
});
export type UploadQuery = Static<typeof UploadQuery>;

/** SPEC "Upload link" (plus the sniffed `mime_type` and the `size` in bytes). */
export const UploadLink = Type.Object({
  link_id: Id,
  module_type: Type.String(),
  module_id: Id,
  name: Type.String(),
  description: Nullable(Type.String()),
  category: Type.String(),
  bucket: Type.String(),
  path: Type.String(),
  original_file_name: Type.String(),
  url: Type.String({ description: 'fresh on every read: signed for 1 hour when private, permanent when public' }),
  owner_id: Nullable(Type.String()),
  meta: Type.Unknown({ description: 'image dimensions ({width, height}) for images, otherwise null' }),
  mime_type: Type.String(),
  size: Type.Integer(),
  link_created_at: Timestamp,
  link_modified_at: Timestamp,
});
export type UploadLink = Static<typeof UploadLink>;
