import { type Kysely, sql } from 'kysely';

// A website form (and the internal request API) finds the workspace's oldest contact with
// the submitted email, case-insensitively (SPEC Internal request creation 1):
// `lower(email) = ? order by id limit 1`. The (workspace_id, email) index cannot answer
// lower(email), so both databases walked the workspace's contacts in id order up to the
// first match: 10 ms and more a submission once a workspace had 100,000 contacts, and
// the form's answers timed out under load. This index answers it in one seek, in id order.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index contacts_workspace_lower_email on contacts (workspace_id, lower(email), id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contacts_workspace_lower_email').execute();
}
