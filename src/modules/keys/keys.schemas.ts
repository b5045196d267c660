import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Str, Timestamp, Uuid } from '../../kernel/schemas.ts';

// Issue 22: API keys managed over the API (A5 "API keys"); never their tokens, but once.

export const KEY_TYPE_VALUES = ['general', 'rest', 'embed_forms', 'automation', 'plugin'] as const;

export const ApiKey = Type.Object({
  id: Id,
  name: Nullable(Type.String()),
  type: Type.String(),
  scopes: Type.Array(Type.String()),
  user_id: Nullable(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
});
export type ApiKey = Static<typeof ApiKey>;

/** The answer of POST /keys: the key and, this once, its token (null when an Idempotency-Key replays it, A62). */
export const CreatedApiKey = Type.Object({ ...ApiKey.properties, token: Nullable(Type.String()) });
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateKeyBody = Type.Object({
  type: Type.Enum([...KEY_TYPE_VALUES]),
  name: Type.Optional(Str(100)),
  // Replace the type's defaults (SPEC "Key types and default scopes"); required for `rest`.
  scopes: Type.Optional(Type.Array(Str(50), { minItems: 1, maxItems: 60, uniqueItems: true })),
  // The key's user; by default the person creating it (A1: a session acts as its user).
  user_id: Type.Optional(Uuid),
});
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const KEY_SORT = ['id', 'created_at', 'last_used_at', 'name'] as const;
export const KeyQuery = listQuery(KEY_SORT, {
  type: Type.Optional(Type.Enum([...KEY_TYPE_VALUES])),
  revoked: Type.Optional(Type.Boolean({ description: 'true: only revoked keys; false: only live ones' })),
});
export type KeyQuery = Static<typeof KeyQuery>;
