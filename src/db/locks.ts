import { type Kysely, PostgresAdapter, type SelectQueryBuilder } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Reads a row under a lock held until commit, so two writes of one record
 * (two accepts, two "mark paid") see each other's status: on PostgreSQL a
 * `FOR NO KEY UPDATE` (which does not block foreign-key checks of other rows);
 * SQLite runs one transaction at a time already.
 */
export function locked<TB extends keyof DB, O>(db: Kysely<DB>, qb: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? qb.forNoKeyUpdate() : qb;
}
