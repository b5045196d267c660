import { type Static, Type } from 'typebox';
import { Id, Nullable, Timestamp } from '../../kernel/schemas.ts';
import { EVENTS } from '../../outbox/emit.ts';

// SPEC "Webhook subscription endpoints" and "Webhook subscription".

const TriggerEvent = Type.Enum([...EVENTS]);

export const SubscribeBody = Type.Object({
  trigger_event: TriggerEvent,
  // Checked further by the service (D17): absolute http(s), and not private.
  webhook_url: Type.String({ minLength: 1, maxLength: 2048 }),
});
export type SubscribeBody = Static<typeof SubscribeBody>;

export const UnsubscribeBody = Type.Object({ subscription_id: Id });
export type UnsubscribeBody = Static<typeof UnsubscribeBody>;

export const ListQuery = Type.Object({
  trigger_event: Type.Optional(TriggerEvent),
  // D21: legacy keys name their workspace; wk_ keys ignore it, so it is not validated as a number here.
  workspace_id: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ListQuery = Static<typeof ListQuery>;

export const Subscription = Type.Object({
  id: Id,
  trigger_event: Type.String(),
  webhook_url: Type.String(),
  is_active: Type.Boolean(),
  created_at: Timestamp,
});
export type Subscription = Static<typeof Subscription>;

export const ListedSubscription = Type.Object({ ...Subscription.properties, last_triggered_at: Nullable(Timestamp) });
export type ListedSubscription = Static<typeof ListedSubscription>;

/** D15: the signing secret is in this answer only. */
export const SubscribeResponse = Type.Object({
  success: Type.Literal(true),
  subscription: Type.Object({ ...Subscription.properties, secret: Type.String() }),
});
export const ListResponse = Type.Object({ success: Type.Literal(true), subscriptions: Type.Array(ListedSubscription), count: Type.Integer() });
export const UnsubscribeResponse = Type.Object({ success: Type.Literal(true), message: Type.String() });
