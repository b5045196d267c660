import { type Static, Type } from 'typebox';
import { DELETED_RESOURCES } from '../../db/deletions.ts';
import { Instant } from '../../db/list-query.ts';
import { Id } from '../../kernel/schemas.ts';

/** E13: one deleted record. */
export const Deletion = Type.Object({
  resource: Type.Enum([...DELETED_RESOURCES]),
  id: Id,
  deleted_at: Type.String({ format: 'date-time' }),
});
export type Deletion = Static<typeof Deletion>;

export const DeletionQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  // F121: the feed sorts by its one timestamp; other values are refused like on every list.
  sort_by: Type.Optional(Type.Enum(['deleted_at'], { description: 'The one order: by deletion time (then id)' })),
  sort_direction: Type.Optional(Type.Enum(['asc', 'desc'], { description: 'Oldest first (`asc`, the default) or newest first' })),
  since: Instant('Deletions at or after this instant (ISO 8601 with `Z` or an offset)'),
  // Names are checked by the service, so an unknown one is named in `details`.
  resource: Type.Optional(Type.String({ maxLength: 500, description: `Comma-separated: ${DELETED_RESOURCES.join(', ')}` })),
});
export type DeletionQuery = Static<typeof DeletionQuery>;
