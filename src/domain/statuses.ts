// SPEC "States and transitions": the allowed values; the first is the default.
export const REQUEST_STATUSES = ['new', 'responded', 'overdue', 'rejected', 'archived'] as const;
export const QUOTE_STATUSES = ['draft', 'awaiting_response', 'accepted', 'declined', 'expired', 'archived', 'awaiting_deposit'] as const;
export const JOB_STATUSES = ['draft', 'scheduled', 'in_progress', 'completed', 'cancelled'] as const;
export const INVOICE_STATUSES = ['draft', 'sent', 'paid', 'overdue', 'cancelled', 'partially_paid', 'scheduled'] as const;

export type RequestStatus = (typeof REQUEST_STATUSES)[number];
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export type JobStatus = (typeof JOB_STATUSES)[number];
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** A write moved the record into `target` (D14, D16: effects fire on entering, not on staying). */
export const enters = (before: string | null, after: string, target: string): boolean => after === target && before !== target;

