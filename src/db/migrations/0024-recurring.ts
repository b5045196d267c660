import { type Kysely, sql } from 'kysely';
import { jsonType } from './helpers.ts';

// E20-E22: recurring jobs. A job keeps its rule as one JSON `schedule` (null for a
// job without one) and how far its visits were made (`generated_through`, the
// daily run's resume point); `invoicing` says how its work is billed. A visit is an
// ordinary event carrying the rule's date it stands for (`occurrence_date`) and
// whether it was changed by hand (`detached`). The unique key is what keeps one
// visit per job and date whatever the number of processes, retries and runs: every
// writer inserts with ON CONFLICT DO NOTHING. Events no rule made have a null
// `occurrence_date`, and nulls never collide.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('schedule', jsonType(db)).execute();
  await db.schema.alterTable('jobs').addColumn('generated_through', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('invoicing', 'text', (c) => c.notNull().defaultTo('manual')).execute();
  await db.schema.alterTable('events').addColumn('occurrence_date', 'text').execute();
  await db.schema.alterTable('events').addColumn('detached', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`create unique index events_job_occurrence on events (workspace_id, job_id, occurrence_date)`.execute(db);
  // The daily run's search: series whose visits end before the horizon. Partial (jobs
  // without a series are not in it), so no other query of jobs finds it the cheaper index.
  await sql`create index jobs_workspace_generated_through on jobs (workspace_id, generated_through) where generated_through is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_workspace_generated_through').execute();
  await db.schema.dropIndex('events_job_occurrence').execute();
  await db.schema.alterTable('events').dropColumn('detached').execute();
  await db.schema.alterTable('events').dropColumn('occurrence_date').execute();
  await db.schema.alterTable('jobs').dropColumn('invoicing').execute();
  await db.schema.alterTable('jobs').dropColumn('generated_through').execute();
  await db.schema.alterTable('jobs').dropColumn('schedule').execute();
}
