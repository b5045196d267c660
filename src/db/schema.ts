// Table types for Kysely. Timestamps are ISO 8601 text, dates YYYY-MM-DD text,
// booleans 0/1 and JSON columns text on both dialects (see json.ts).
import type { Generated } from 'kysely';

type Json = string | null;

export interface WorkspacesTable {
  id: Generated<number>;
  name: string;
  slug: string;
  hash: string; // the 8 characters of `wk_<hash>.` in its keys
  industry: string | null;
  industry_key: string | null;
  country: string | null;
  currency: string | null;
  timezone: string | null;
  about: string | null;
  settings: Json;
  created_at: string;
  updated_at: string;
  // How customers reach the business, on its documents (0017).
  address: string | null;
  phone: string | null;
  email: string | null;
  website: string | null;
  tax_number: string | null;
  // The logo (0018, A125): its key in the public bucket and its sniffed type (image/png or image/jpeg).
  logo_key: string | null;
  logo_type: string | null;
}

/** A workspace member. `user_id` is the UUID the API uses for every user reference. */
export interface UsersTable {
  id: Generated<number>;
  workspace_id: number;
  user_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  role: string;
  job_title: string | null;
  preferences: Json;
  /** 0027, E26: cost per hour in integer cents; null when unset. */
  cost_rate_cents: number | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  workspace_id: number;
  type: string;
  scopes: string; // JSON array
  user_id: string | null;
  name: string | null;
  token_hash: string;
  legacy: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  updated_at: string; // 0017: created or revoked (not last use)
}

export interface ContactsTable {
  id: Generated<number>;
  workspace_id: number;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  secondary_email: string | null;
  secondary_phone: string | null;
  company: string | null;
  company_department: string | null;
  company_position: string | null;
  title: string | null;
  type: string;
  owner_id: string | null;
  info: Json;
  custom_fields: Json;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface PropertiesTable {
  id: Generated<number>;
  workspace_id: number;
  street: string;
  street_2: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  property_type: string;
  /** Gate codes, pets, keys (F228); null when none. */
  access_notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContactPropertiesTable {
  workspace_id: number;
  contact_id: number;
  property_id: number;
  role: string;
  created_at: string;
}

/** Domain events written in the writer's transaction; the worker delivers them. */
export interface OutboxTable {
  id: Generated<number>;
  workspace_id: number;
  event: string;
  payload: string; // JSON: the webhook payload minus meta
  created_at: string;
  // 0004: the worker's lease (src/outbox/claim.ts) and when it fanned the row out.
  processed_at: string | null;
  locked_until: string | null;
  locked_by: string | null;
}


/** D13: the last number given per workspace and kind (requests, quotes, jobs). */
export interface CountersTable {
  workspace_id: number;
  kind: string;
  value: number;
}

export interface TaxRatesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  description: string | null;
  rate: number;
  created_at: string;
  updated_at: string;
}

export interface ServicesTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  description: string | null;
  price: number;
  sku: string | null;
  type: string;
  taxable: number;
  created_at: string;
  updated_at: string;
}

/** Columns every priced document shares (D7). */
interface Pricing {
  line_items: string; // JSON array of line items
  discount: number;
  discount_unit: string;
  deposit: number;
  deposit_unit: string;
  tax_rate: number;
  tax_rate_id: number | null;
  total: number;
}

export interface QuoteTemplatesTable extends Pricing {
  id: Generated<number>;
  workspace_id: number;
  template_name: string;
  name: string | null;
  description: string | null;
  message: string | null;
  payment_instructions: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface RequestsTable {
  id: Generated<number>;
  workspace_id: number;
  number: number;
  name: string | null;
  contact_id: number | null;
  property_id: number | null;
  assignee_id: string | null;
  details: string | null;
  assessment: string | null;
  requested_on: string | null;
  status: string;
  data: Json;
  custom_fields: Json;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface QuotesTable extends Pricing {
  id: Generated<number>;
  workspace_id: number;
  number: number;
  name: string | null;
  contact_id: number | null;
  property_id: number | null;
  request_id: number | null;
  salesperson_id: string | null;
  template_id: number | null;
  date: string | null;
  expire_on: string | null;
  message: string | null;
  payment_instructions: string | null;
  status: string;
  custom_fields: Json;
  /** E8: the customer's approval through the hub, JSON `{signature_name, message, approved_at}`. */
  approval: Json | null;
  /** 0029, E23: the sum of its deposit payments, in cents. */
  deposit_paid_cents: Generated<number>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface QuoteStatusChangesTable {
  id: Generated<number>;
  workspace_id: number;
  quote_id: number;
  status: string;
  comment: string | null;
  user_id: string | null;
  /** E8: 1 when the customer made it in the hub. */
  by_customer: Generated<number>;
  created_at: string;
}

export interface JobsTable extends Pricing {
  id: Generated<number>;
  workspace_id: number;
  number: number;
  name: string | null;
  contact_id: number | null;
  property_id: number | null;
  request_id: number | null;
  quote_id: number | null;
  salesperson_id: string | null;
  type: string;
  expected_end_date: string | null;
  expenses: string; // JSON array (D10)
  status: string;
  custom_fields: Json;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** 0024, E20: the rule as JSON (`StoredSchedule`), null without one. */
  schedule: Json | null;
  /** 0024, E20: the last date the series' visits were made through (null without a series). */
  generated_through: string | null;
  /** 0024, E22: `manual`, `per_visit` or `monthly`. */
  invoicing: Generated<string>;
}

export interface InvoicesTable extends Pricing {
  id: Generated<number>;
  workspace_id: number;
  name: string | null;
  contact_id: number | null;
  property_id: number | null;
  job_id: number | null;
  quote_id: number | null;
  parent_id: number | null; // exclude_children: SPEC names no parent field; this is ours
  number: number; // E1: D13 kind `invoices` (nullable column, set on every insert and by 0013)
  amount_paid_cents: Generated<number>; // E4: the live payments' sum, kept in the payment's transaction
  salesperson_id: string | null;
  date: string | null;
  due_date: string | null;
  send_on: string | null;
  message: string | null;
  payment_instructions: string | null;
  payment_terms: string;
  status: string;
  type: string;
  event_ids: string; // JSON array of event ids
  custom_fields: Json;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** E3: a payment against an invoice, in integer cents. */
export interface InvoicePaymentsTable {
  id: Generated<number>;
  workspace_id: number;
  invoice_id: number;
  amount_cents: number;
  method: string;
  paid_on: string;
  reference: string | null;
  note: string | null;
  created_by: string | null;
  created_at: string;
  /** 0029, E23: the deposit payment this one was carried from. */
  deposit_id: Generated<number | null>;
}

/** 0029, E23: a deposit payment against a quote, in integer cents. */
export interface QuotePaymentsTable {
  id: Generated<number>;
  workspace_id: number;
  quote_id: number;
  amount_cents: number;
  /** How much of it was carried onto the job's invoices as payments. */
  carried_cents: Generated<number>;
  method: string;
  paid_on: string;
  reference: string | null;
  note: string | null;
  created_by: string | null;
  created_at: string;
}

/** A stored object (0005). Several upload links may share one (SPEC Uploads 3). */
export interface StoredFilesTable {
  id: Generated<number>;
  workspace_id: number;
  bucket: string; // workspaces (private) | workspaces_pub (public)
  path: string; // random server-chosen key inside the bucket
  sha256: string;
  size: number;
  mime_type: string; // sniffed from the bytes (D20)
  original_file_name: string;
  meta: Json;
  created_at: string;
}

/** SPEC "Upload link": a stored file attached to a parent entity. */
export interface UploadLinksTable {
  id: Generated<number>; // link_id
  workspace_id: number;
  file_id: number;
  module_type: string;
  module_id: number;
  name: string;
  description: string | null;
  category: string;
  original_file_name: string;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Bytes to remove once the transaction that released them has committed. */
export interface FileDeletionsTable {
  id: Generated<number>;
  workspace_id: number;
  bucket: string;
  path: string;
  created_at: string;
}

export interface CommentsTable {
  id: Generated<number>;
  workspace_id: number;
  related_type: string;
  related_id: number;
  comment: string;
  author_id: string | null;
  reply_to: number | null;
  mentioned_user_ids: Json; // JSON array of user UUIDs
  status: string; // active | trash
  created_at: string;
  modified_at: string | null;
}

/** D22: one row per recipient user. */
export interface InternalNotificationsTable {
  id: Generated<number>;
  workspace_id: number;
  user_id: string;
  name: string;
  module_type: string | null;
  module_id: number | null;
  data: Json;
  created_at: string;
  read_at: string | null;
}

/** Service-wide secrets (the file URL signing key, D20). */
export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/** SPEC Event (0003). `all_day` and `multi_day` are 0/1. */
export interface EventsTable {
  id: Generated<number>;
  workspace_id: number;
  name: string | null;
  description: string | null;
  job_id: number | null;
  request_id: number | null;
  start_date: string;
  end_date: string;
  start_time: string | null;
  end_time: string | null;
  all_day: number;
  multi_day: number;
  type: string;
  status: string;
  /** E8: when the customer confirmed the appointment in the hub. */
  customer_confirmed_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** 0024, E20: the rule's date this visit stands for; null on events no rule made. */
  occurrence_date: Generated<string | null>;
  /** 0024, E21: changed by hand, so no rule change moves or deletes it. */
  detached: Generated<number>;
  /** 0029, E22: the invoice that billed this visit; null until billed. */
  invoice_id: Generated<number | null>;
}

/** E7: a customer hub link; only the SHA-256 of its token is kept. */
export interface HubLinksTable {
  id: Generated<number>;
  workspace_id: number;
  contact_id: number;
  token_hash: string;
  expires_at: string;
  created_at: string;
}

/** An event's `assignee_ids`, one row per user UUID. */
export interface EventAssigneesTable {
  workspace_id: number;
  event_id: number;
  user_id: string;
}

/** D9: one per user and week; `total_time` is kept equal to the sum of its entries. */
export interface TimesheetsTable {
  id: Generated<number>;
  workspace_id: number;
  user_id: string;
  start_date: string;
  end_date: string; // D30: start_date + 6
  status: string;
  total_time: number;
  created_at: string;
  updated_at: string;
}

export interface TimeEntriesTable {
  id: Generated<number>;
  workspace_id: number;
  timesheet_id: number;
  user_id: string;
  start_date: string;
  end_date: string;
  start_time: string | null;
  end_time: string | null;
  total_time: number;
  description: string | null;
  job_id: number | null;
  request_id: number | null;
  quote_id: number | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface DB {
  workspaces: WorkspacesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  contacts: ContactsTable;
  properties: PropertiesTable;
  contact_properties: ContactPropertiesTable;
  outbox: OutboxTable;
  counters: CountersTable;
  tax_rates: TaxRatesTable;
  services: ServicesTable;
  quote_templates: QuoteTemplatesTable;
  requests: RequestsTable;
  quotes: QuotesTable;
  quote_status_changes: QuoteStatusChangesTable;
  jobs: JobsTable;
  invoices: InvoicesTable;
  invoice_payments: InvoicePaymentsTable;
  quote_payments: QuotePaymentsTable;
  stored_files: StoredFilesTable;
  upload_links: UploadLinksTable;
  file_deletions: FileDeletionsTable;
  comments: CommentsTable;
  internal_notifications: InternalNotificationsTable;
  service_secrets: ServiceSecretsTable;
  events: EventsTable;
  event_assignees: EventAssigneesTable;
  timesheets: TimesheetsTable;
  time_entries: TimeEntriesTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  custom_fields: CustomFieldsTable;
  messages: MessagesTable;
  scheduled_runs: ScheduledRunsTable;
  appointment_reminders: AppointmentRemindersTable;
  idempotency_keys: IdempotencyKeysTable;
  hub_links: HubLinksTable;
  accounts: AccountsTable;
  sessions: SessionsTable;
  auth_links: AuthLinksTable;
  deletions: DeletionsTable;
  row_counts: RowCountsTable;
  payment_days: PaymentDaysTable;
  customer_reminders: CustomerRemindersTable;
  calendar_feeds: CalendarFeedsTable;
  calendar_sequences: CalendarSequencesTable;
  imports: ImportsTable;
  exports: ExportsTable;
  contacts_search: SearchIndexRelation;
  properties_search: SearchIndexRelation;
}

/** E13 (0014): one row per deleted record, written in the delete's transaction; kept 90 days. */
export interface DeletionsTable {
  id: Generated<number>;
  workspace_id: number;
  /** The API's resource name (`contacts`, `time_entries`, ...; src/db/deletions.ts). */
  resource: string;
  resource_id: number;
  /** The read scope that shows the entry: `contacts:read`; an upload's is its parent's. */
  scope: string;
  deleted_at: string;
}

/** Payments per workspace and day, kept by triggers on invoice_payments (0022); PostgreSQL sums a day's slots. */
export interface PaymentDaysTable {
  workspace_id: number;
  paid_on: string;
  slot: number;
  cents: number;
  n: number;
}

/** Rows per workspace and table, kept by triggers (0009); the count is the sum over slots. */
export interface RowCountsTable {
  workspace_id: number;
  table_name: string;
  slot: number;
  n: number;
}

/** A search index as list-query.ts queries it (0009): `doc like '%term%'` gives row ids. */
export interface SearchIndexRelation {
  rowid: number;
  doc: string;
}

/** SPEC "Webhook subscription" (0004). D15: `secret` signs deliveries; returned once. */
export interface WebhookSubscriptionsTable {
  id: Generated<number>;
  workspace_id: number;
  trigger_event: string;
  webhook_url: string;
  secret: string;
  is_active: number;
  created_at: string;
  last_triggered_at: string | null;
  deleted_at: string | null; // unsubscribed: kept for the delivery log only
}

/** One event for one subscription; retried until delivered or `max_attempts` (0004). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  workspace_id: number;
  subscription_id: number;
  outbox_id: number;
  event: string;
  webhook_id: string; // meta.webhook_id and X-Service-Delivery, the same on every attempt
  status: string; // pending | delivered | failed
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  locked_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** Every HTTP attempt of a delivery, with its answer or error (0004). */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  workspace_id: number;
  delivery_id: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  worker: string; // the Worker.id that made it
  created_at: string;
}

/** D23: one custom field definition of a module (0006). */
export interface CustomFieldsTable {
  id: Generated<number>;
  workspace_id: number;
  module_type: string; // contact | request | quote | job | invoice
  key: string;
  label: string;
  type: string; // text | number | boolean | date | select
  options: Json; // select: JSON array of the allowed values
  required: number;
  created_at: string;
  updated_at: string; // 0017
}

/** A customer email or SMS: the message log and the worker's queue (0007). */
export interface MessagesTable {
  id: Generated<number>;
  workspace_id: number;
  channel: string; // email | sms
  type: string; // quote_to_customer | invoice_to_customer | appointment_reminder
  module_type: string; // quote | invoice | event
  module_id: number;
  contact_id: number | null;
  recipient: string; // email address or phone number
  subject: string | null;
  body_text: string;
  body_html: string | null;
  status: string; // queued | sent | not_sent | failed
  error: string | null;
  attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  locked_by: string | null;
  message_id: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

/** A daily job's run for one workspace and local date (0007). */
export interface ScheduledRunsTable {
  workspace_id: number;
  job: string;
  run_date: string;
  created_at: string;
}

/** D22: an `appointments_soon` already given for this event and user (0007). */
export interface AppointmentRemindersTable {
  workspace_id: number;
  event_id: number;
  user_id: string;
  created_at: string;
}

/** E11: an Idempotency-Key of one API key, and the response it answered (0012). */
export interface IdempotencyKeysTable {
  workspace_id: number;
  key_id: number;
  idem_key: string;
  method: string;
  path: string;
  body_hash: string;
  state: string; // running | done
  status: number | null;
  response: string | null;
  locked_by: string;
  locked_until: string;
  created_at: string;
  expires_at: string;
}

/** A1 (0016): a person, an email with one password; their memberships are the `users` rows with that email. */
export interface AccountsTable {
  id: Generated<number>;
  email: string;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** A1 (0016): a signed-in browser; only the SHA-256 of its token is kept. */
export interface SessionsTable {
  id: Generated<number>;
  token_hash: string;
  account_id: number;
  /** users.id: the membership (workspace and role) the session acts as. */
  user_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** A1 (0016): setup and password reset links, single use; only the SHA-256 of the token is kept. */
export interface AuthLinksTable {
  id: Generated<number>;
  workspace_id: number;
  /** users.id */
  user_id: number;
  kind: string; // setup | reset
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** E24: an automatic reminder given, once per document (or visit), step and anchor (0028, F271). */
export interface CustomerRemindersTable {
  workspace_id: number;
  type: string;
  document_id: number;
  step: number;
  anchor: string;
  created_at: string;
}

/** E25: a member's calendar feed; only the SHA-256 of its token is kept (0028). */
export interface CalendarFeedsTable {
  id: Generated<number>;
  workspace_id: number;
  /** users.id of the membership whose visits it lists. */
  member_id: number;
  token_hash: string;
  created_at: string;
}

/** E25: a visit's SEQUENCE in the feeds and the fingerprint of what it showed (0028, F276). */
export interface CalendarSequencesTable {
  workspace_id: number;
  event_id: number;
  sequence: number;
  fingerprint: string;
}

/** E28: a CSV import, claimed by the worker; `processed` rows are committed with their writes (0030). */
export interface ImportsTable {
  id: Generated<number>;
  workspace_id: number;
  kind: string; // clients | services
  status: string; // queued | running | done | failed
  dry_run: number;
  mapping: string | null;
  file_key: string;
  created_by: string | null;
  rows: number;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  errors: string;
  failure: string | null;
  attempts: number;
  locked_by: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** E29: a whole-workspace ZIP, made by the worker into the private bucket (0030). */
export interface ExportsTable {
  id: Generated<number>;
  workspace_id: number;
  status: string; // queued | running | done | failed
  file_key: string | null;
  bytes: number | null;
  counts: string | null;
  created_by: string | null;
  failure: string | null;
  attempts: number;
  locked_by: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}
