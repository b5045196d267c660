import { type Static, Type } from 'typebox';
import { Nullable, Ok, Timestamp, Uuid } from '../../kernel/schemas.ts';

/** A section the key may not read (its resource's `<x>:read` scope is missing) is null. */
export const HomeSummary = Type.Object({
  /** Requests with status `new` (requests:read). */
  new_requests: Nullable(Type.Integer()),
  /** Quotes with status `awaiting_response` (quotes:read). */
  quotes_awaiting_response: Nullable(Type.Integer()),
  /** Completed jobs no invoice names (jobs:read). */
  jobs_to_invoice: Nullable(Type.Integer()),
  /** Invoices with status `overdue` and what is left to pay on them (invoices:read). */
  overdue_invoices: Nullable(Type.Object({ count: Type.Integer(), amount_due: Type.Number() })),
  /** Payments received per calendar month (by `paid_on`), the last 12 months oldest first, months without payments included (invoices:read). */
  payments_by_month: Nullable(Type.Array(Type.Object({ month: Type.String({ description: 'YYYY-MM' }), amount: Type.Number(), count: Type.Integer() }))),
  /**
   * F332: a new workspace's first steps, each true once done: the business's contact details
   * (phone, email or address), a service in the price book, a client, a second team member
   * (invited or set up). Only for callers that may change the workspace (`workspace:write`); null otherwise.
   */
  get_started: Nullable(Type.Object({ company_details: Type.Boolean(), price_book: Type.Boolean(), first_client: Type.Boolean(), team: Type.Boolean() })),
  /** The latest domain events (the webhook event stream) of the resources the key may read, newest first. */
  activity: Type.Array(
    Type.Object({
      event: Type.String({ description: 'The webhook event name, e.g. `new_quote`' }),
      at: Timestamp,
      resource: Type.String({ description: '`contacts`, `requests`, `quotes`, `jobs`, `invoices` or `events`' }),
      id: Type.Integer({ description: 'The record (for `payment_received`: its invoice)' }),
      number: Nullable(Type.Integer()),
      name: Nullable(Type.String()),
      status: Nullable(Type.String()),
      /** Who created the record (a payment: who recorded it), when the record names one (`created_by`); null otherwise. */
      user: Nullable(Type.Object({ id: Uuid, first_name: Nullable(Type.String()), last_name: Nullable(Type.String()) })),
    }),
  ),
});
export type HomeSummary = Static<typeof HomeSummary>;
export type Activity = HomeSummary['activity'][number];

export const HomeQuery = Type.Object({
  activity_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 50, default: 15, description: 'How many activity entries (default 15)' })),
});
export type HomeQuery = Static<typeof HomeQuery>;

export const HomeResponse = Ok(HomeSummary);
