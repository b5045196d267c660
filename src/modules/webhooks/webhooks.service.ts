import { randomBytes } from 'node:crypto';
import { transact } from '../../http/transact.ts';
import { fromBool, now } from '../../db/json.ts';
import type { AuthContext } from '../../http/auth.ts';
import { invalidKey } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { parseWebhookUrl, privateAddressOf } from '../../outbox/url-guard.ts';
import { countLiveSubscriptions, insertSubscription, listLiveSubscriptions, markUnsubscribed } from './webhooks.repo.ts';
import type { ListedSubscription, ListQuery, SubscribeBody, Subscription } from './webhooks.schemas.ts';

/** Active subscriptions a workspace may hold: keeps the list (which has no pages) and the fan-out bounded. */
export const MAX_SUBSCRIPTIONS = 100;

const view = (r: { id: number; trigger_event: string; webhook_url: string; is_active: number; created_at: string }): Subscription => ({
  id: r.id,
  trigger_event: r.trigger_event,
  webhook_url: r.webhook_url,
  is_active: fromBool(r.is_active),
  created_at: r.created_at,
});

export function webhooksService({ db, config }: AppContext) {
  return {
    async subscribe(auth: AuthContext, body: SubscribeBody): Promise<Subscription & { secret: string }> {
      const url = parseWebhookUrl(body.webhook_url);
      if (!url) throw invalidField(['webhook_url'], 'must be an absolute http or https URL'); // D17
      if (!config.webhookAllowPrivateUrls) {
        const address = await privateAddressOf(url);
        if (address) throw invalidField(['webhook_url'], `must not point to a private address (${address})`);
      }
      if ((await countLiveSubscriptions(db, auth.workspaceId)) >= MAX_SUBSCRIPTIONS) throw invalidField([], `a workspace can hold at most ${MAX_SUBSCRIPTIONS} subscriptions`);
      const secret = randomBytes(32).toString('hex'); // D15: one per subscription
      return transact(db, auth, async (trx) => {
        const row = await insertSubscription(trx, {
          workspace_id: auth.workspaceId,
          trigger_event: body.trigger_event,
          webhook_url: body.webhook_url,
          secret,
          is_active: 1,
          created_at: now(),
        });
        return { ...view(row), secret };
      });
    },

    async list(auth: AuthContext, query: ListQuery): Promise<ListedSubscription[]> {
      // D21: a legacy key names its workspace, and it must be its own; wk_ keys ignore the parameter.
      if (auth.legacy) {
        if (query.workspace_id === undefined) throw invalidField(['workspace_id'], 'is required with a legacy API key');
        if (query.workspace_id.trim() !== String(auth.workspaceId)) throw invalidKey();
      }
      const rows = await listLiveSubscriptions(db, auth.workspaceId, query.trigger_event); // D1
      return rows.map((r) => ({ ...view(r), last_triggered_at: r.last_triggered_at }));
    },

    /** D17, D32: another workspace's or an unknown subscription is 404 `Subscription not found`. */
    async unsubscribe(auth: AuthContext, id: number): Promise<void> {
      // Kept (marked deleted) for the delivery log; its pending deliveries are not sent (worker.ts).
      await transact(db, auth, async (trx) => {
        if (!(await markUnsubscribed(trx, auth.workspaceId, id, now()))) throw notFound('Subscription');
      });
    },
  };
}
