import type { Insertable, Kysely } from 'kysely';
import type { DB, WebhookSubscriptionsTable } from '../../db/schema.ts';

/** Subscriptions not unsubscribed (deleted ones stay for the delivery log). */
export async function countLiveSubscriptions(db: Kysely<DB>, workspaceId: number): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export function insertSubscription(db: Kysely<DB>, values: Insertable<WebhookSubscriptionsTable>) {
  return db.insertInto('webhook_subscriptions').values(values).returningAll().executeTakeFirstOrThrow();
}

/** D1: newest first, id breaking ties. */
export function listLiveSubscriptions(db: Kysely<DB>, workspaceId: number, triggerEvent?: string) {
  let q = db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'trigger_event', 'webhook_url', 'is_active', 'created_at', 'last_triggered_at'])
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null);
  if (triggerEvent) q = q.where('trigger_event', '=', triggerEvent);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** Marks it deleted and inactive; false when there is no such live subscription. */
export async function markUnsubscribed(db: Kysely<DB>, workspaceId: number, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ deleted_at: at, is_active: 0 })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
