import type { Kysely } from 'kysely';

// A13/F228: a property's access notes (gate codes, pets, keys) for the crew on the
// way in: free text up to 2,000 characters, null when there are none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('properties').addColumn('access_notes', 'text').execute();
}
