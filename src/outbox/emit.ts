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
  const timestamp = now();
  await trx
    .insertInto('outbox')
    .values({
      workspace_id: workspaceId,
      event,
      payload: toJson({ event, workspace_id: workspaceId, timestamp, data, link_path: `/api/v1/${resource}/${data.id}` })!,
      created_at: timestamp,
    })
    .execute();
}
