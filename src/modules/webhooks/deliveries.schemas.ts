import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Timestamp, Uuid } from '../../kernel/schemas.ts';
import { DELIVERY_SORT, DELIVERY_STATUSES } from '../../outbox/deliveries.ts';
import { EVENTS } from '../../outbox/emit.ts';

// Issue 22: the webhook delivery log (`fieldwork webhook deliveries|redeliver`) over the API.

export const Delivery = Type.Object({
  id: Id,
  webhook_id: Uuid,
  subscription_id: Id,
  event: Type.String(),
  status: Type.String({ description: `one of: ${DELIVERY_STATUSES.join(', ')}` }),
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(Timestamp),
  created_at: Timestamp,
  delivered_at: Nullable(Timestamp),
});

export const Attempt = Type.Object({
  attempt: Type.Integer(),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
  created_at: Timestamp,
});

export const DeliveryDetail = Type.Object({ ...Delivery.properties, attempt_log: Type.Array(Attempt) });

export const DeliveryQuery = listQuery(DELIVERY_SORT, {
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  subscription_id: Type.Optional(Id),
  event: Type.Optional(Type.Enum([...EVENTS])),
});
export type DeliveryQuery = Static<typeof DeliveryQuery>;
