import { type Kysely, sql } from 'kysely';
import { now } from './json.ts';
import type { DB } from './schema.ts';

// E13: the deletions feed. Every delete of a listed resource records its ids here
// with its own transaction object, so the entry commits with the delete or not at
// all (a delete refused with 409 rolls its entry back). Records deleted with their
// parent (an upload's links when the contact goes) get entries too (F83).

/** API resource name -> the scope prefix whose `:read` shows its entries. */
export const DELETION_SCOPES = {
  contacts: 'contacts',
  properties: 'properties',
  requests: 'requests',
  quotes: 'quotes',
  jobs: 'jobs',
  invoices: 'invoices',
  events: 'events',
  time_entries: 'timesheets', // SPEC: time entries use the timesheets scopes
  services: 'services',
  tax_rates: 'tax-rates',
  quote_templates: 'quote-templates',
  custom_fields: 'custom_fields', // A65: definitions can be deleted over the API
  uploads: null, // the parent's scope (SPEC Uploads 4), given by the caller
} as const;
export type DeletedResource = keyof typeof DELETION_SCOPES;
export const DELETED_RESOURCES = Object.keys(DELETION_SCOPES) as DeletedResource[];

/**
 * Records deleted ids in the deleting transaction. `scopePrefix` is needed only
 * for uploads, whose entries are shown with their parent's read scope.
 */
export async function recordDeletions(trx: Kysely<DB>, workspaceId: number, resource: DeletedResource, ids: readonly number[], scopePrefix?: string): Promise<void> {
  if (!ids.length) return;
  const prefix = scopePrefix ?? DELETION_SCOPES[resource];
  if (!prefix) throw new Error(`recordDeletions: ${resource} needs the scope of its parent`);
  const at = now();
  await trx
    .insertInto('deletions')
    .values(ids.map((id) => ({ workspace_id: workspaceId, resource, resource_id: id, scope: `${prefix}:read`, deleted_at: at })))
    .execute();
}

/**
 * E12 (F82): the rows whose reference a delete clears (`on delete set null`), per
 * deleted table. The foreign key clears the column without touching `updated_at`,
 * so `touchReferrers` moves it first, in the same transaction, and a client syncing
 * by `updated_since` sees the reference gone.
 */
const REFERRERS: Record<string, readonly (readonly [table: string, column: string])[]> = {
  properties: [['requests', 'property_id'], ['quotes', 'property_id'], ['jobs', 'property_id'], ['invoices', 'property_id']],
  requests: [['quotes', 'request_id'], ['jobs', 'request_id'], ['events', 'request_id'], ['time_entries', 'request_id']],
  quotes: [['jobs', 'quote_id'], ['invoices', 'quote_id'], ['time_entries', 'quote_id']],
  jobs: [['invoices', 'job_id'], ['events', 'job_id'], ['time_entries', 'job_id']],
  invoices: [['invoices', 'parent_id']],
  tax_rates: [['quotes', 'tax_rate_id'], ['jobs', 'tax_rate_id'], ['invoices', 'tax_rate_id'], ['quote_templates', 'tax_rate_id']],
};

/** Moves `updated_at` of the rows that reference `table`'s row `id` (call it before the delete). */
export async function touchReferrers(trx: Kysely<DB>, workspaceId: number, table: string, id: number): Promise<void> {
  const at = now();
  for (const [referrer, column] of REFERRERS[table] ?? []) {
    await sql`update ${sql.table(referrer)} set updated_at = ${at} where workspace_id = ${workspaceId} and ${sql.ref(column)} = ${id}`.execute(trx);
  }
}
