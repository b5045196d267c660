import type { Kysely } from 'kysely';
import { BULK_ROWS } from '../db/database.ts';
import { now, toJson } from '../db/json.ts';
import type { DB } from '../db/schema.ts';
import { shapedQuery } from '../db/shaped.ts';

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

/** One domain event, as `emit` takes it: `data` is the resource as its single GET returns it. */
export interface OutboxEvent {
  event: DomainEvent;
  /** Its path under /api/v1, for `meta.link`. */
  resource: string;
  data: { id: number } & object;
  /** The `meta.link` path when it is not `/api/v1/<resource>/<id>` (a payment: its invoice's payments). */
  linkPath?: string;
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
  /** The `meta.link` path when it is not `/api/v1/<resource>/<id>` (a payment: its invoice's payments). */
  linkPath?: string,
): Promise<void> {
  await emitAll(trx, workspaceId, [{ event, resource, data, linkPath }]);
}


/**
 * `emit` for the several events of one write (e.g. an accepted quote's
 * `new_job` and `quote_accepted`) in one INSERT, or for a set-based write's many
 * (the daily run) in one INSERT per BULK_ROWS: the rows keep the given order.
 */
export async function emitAll(trx: Kysely<DB>, workspaceId: number, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const timestamp = now();
  const rowOf = ({ event, resource, data, linkPath }: OutboxEvent): OutboxRow => [
    workspaceId,
    event,
    toJson({ event, workspace_id: workspaceId, timestamp, data, link_path: linkPath ?? `/api/v1/${resource}/${data.id}` })!,
    timestamp,
  ];
  // The few events of one request: one statement compiled once per count of rows.
  if (events.length <= SHAPED_ROWS) {
    await insertOutboxRows(trx, { rows: events.map(rowOf) });
    return;
  }
  for (let i = 0; i < events.length; i += BULK_ROWS) await insertRows(trx, events.slice(i, i + BULK_ROWS).map(rowOf)).execute();
}

type OutboxRow = [workspaceId: number, event: DomainEvent, payload: string, createdAt: string];
const insertRows = (trx: Kysely<DB>, rows: readonly OutboxRow[]) =>
  trx.insertInto('outbox').values(rows.map(([workspace_id, event, payload, created_at]) => ({ workspace_id, event, payload, created_at })));
const SHAPED_ROWS = 8;
const insertOutboxRows = shapedQuery((trx, v: { rows: OutboxRow[] }) => insertRows(trx, v.rows));

/** One event for many records (set-based writes such as the daily run). */
export function emitMany(trx: Kysely<DB>, workspaceId: number, event: DomainEvent, resource: string, data: readonly ({ id: number } & object)[]): Promise<void> {
  return emitAll(trx, workspaceId, data.map((d) => ({ event, resource, data: d })));
}
