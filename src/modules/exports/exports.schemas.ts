import { type Static, Type } from 'typebox';
import { Id, Nullable, Timestamp } from '../../kernel/schemas.ts';

export const Export = Type.Object({
  id: Id,
  status: Type.Enum(['queued', 'running', 'done', 'failed']),
  bytes: Nullable(Type.Integer({ description: "The ZIP's size, once done" })),
  counts: Nullable(Type.Record(Type.String(), Type.Integer(), { description: 'Records per resource (and `files`), once done' })),
  download_url: Nullable(Type.String({ description: 'A signed URL (1 hour) of the ZIP, once done' })),
  failure: Nullable(Type.String()),
  created_at: Timestamp,
  finished_at: Nullable(Timestamp),
});
export type Export = Static<typeof Export>;
