import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AuthContext } from './auth.ts';

/**
 * The one way a write route runs its effect: in a transaction that also records
 * the route's response for the request's Idempotency-Key, if it has one (E11).
 * A crash at any moment leaves the effect with its stored response, or neither.
 * `fn`'s result is what the route answers (inside its envelope, see
 * src/http/idempotency.ts): a route must not reshape it after the commit.
 */
export function transact<T>(db: Kysely<DB>, auth: Pick<AuthContext, 'idempotency'>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await fn(trx);
    await auth.idempotency?.store(trx, result);
    return result;
  });
}
