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
  // EXTENSIONS E14: `*_updated` on every write to the record (status included),
  // `*_deleted` with `data: {id}`, `payment_received` with the payment.
  'contact_updated',
  'contact_deleted',
  'request_deleted',
  'quote_updated',
  'quote_deleted',
  'job_updated',
  'job_deleted',
  'invoice_updated',
  'invoice_deleted',
  'new_event',
  'event_updated',
  'event_deleted',
  'payment_received',
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
  /** The `meta.link` path when it is not `/api/v1/<resource>/<id>` (a payment: its invoice's payments). */
  linkPath?: string,
): Promise<void> {
  const timestamp = now();
  await trx
    .insertInto('outbox')
    .values({
      workspace_id: workspaceId,
      event,
      payload: toJson({ event, workspace_id: workspaceId, timestamp, data, link_path: linkPath ?? `/api/v1/${resource}/${data.id}` })!,
      created_at: timestamp,
    })
    .execute();
}

// Rows per INSERT: far below SQLite's bound-parameter limit.
const EMIT_CHUNK = 500;

/** `emit` for many records of one event (set-based writes such as the daily run): one INSERT per 500. */
export async function emitMany(trx: Kysely<DB>, workspaceId: number, event: DomainEvent, resource: string, data: readonly ({ id: number } & object)[]): Promise<void> {
  const timestamp = now();
  for (let i = 0; i < data.length; i += EMIT_CHUNK) {
    await trx
      .insertInto('outbox')
      .values(
        data.slice(i, i + EMIT_CHUNK).map((d) => ({
          workspace_id: workspaceId,
          event,
          payload: toJson({ event, workspace_id: workspaceId, timestamp, data: d, link_path: `/api/v1/${resource}/${d.id}` })!,
          created_at: timestamp,
        })),
      )
      .execute();
  }
}
