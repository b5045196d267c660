import type { Kysely } from 'kysely';
import { now, toJson } from '../db/json.ts';
import type { DB } from '../db/schema.ts';

/** SPEC "Webhook events". */
export const EVENTS = [
  'new_request',
  'request_updated',
  'new_contact',
  'new_quote',
  'quote_accepted',
  'new_job',
  'new_invoice',
  'invoice_sent',
  'invoice_paid',
] as const;
export type DomainEvent = (typeof EVENTS)[number];

/** One domain event, as `emit` takes it: `data` is the resource as its single GET returns it. */
export interface OutboxEvent {
  event: DomainEvent;
  /** Its path under /api/v1, for `meta.link`. */
  resource: string;
  data: { id: number } & object;
}

/**
 * Records a domain event with the writer's own transaction (DESIGN convention 5,
 * D16): it commits with the change or not at all. `data` is the resource as its
 * single GET returns it; `resource` is its path under /api/v1, for `meta.link`.
 */
export async function emit(
  trx: Kysely<DB>,
  workspaceId: number,
  event: DomainEvent,
  resource: string,
  data: { id: number } & object,
): Promise<void> {
  await emitAll(trx, workspaceId, [{ event, resource, data }]);
}

/**
 * `emit` for the several events of one write (e.g. an accepted quote's
 * `new_job` and `quote_accepted`), in one INSERT: the rows keep the given order.
 */
export async function emitAll(trx: Kysely<DB>, workspaceId: number, events: readonly OutboxEvent[]): Promise<void> {
  if (!events.length) return;
  const timestamp = now();
  await trx
    .insertInto('outbox')
    .values(
      events.map(({ event, resource, data }) => ({
        workspace_id: workspaceId,
        event,
        payload: toJson({ event, workspace_id: workspaceId, timestamp, data, link_path: `/api/v1/${resource}/${data.id}` })!,
        created_at: timestamp,
      })),
    )
    .execute();
}
