import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { recordDeletions, touchReferrers } from './deletions.ts';
import { locked } from './locks.ts';
import type { DB } from './schema.ts';

/** Tables with an integer `id` and a `workspace_id`, written through the generic CRUD pattern. */
export type TenantTable = 'requests' | 'quotes' | 'jobs' | 'invoices' | 'services' | 'tax_rates' | 'quote_templates';

export interface TenantRows<T extends TenantTable> {
  /** `lock`: hold the row until commit (status transitions, D14). */
  find(db: Kysely<DB>, workspaceId: number, id: number, opts?: { lock?: boolean }): Promise<Selectable<DB[T]> | undefined>;
  insert(db: Kysely<DB>, values: Insertable<DB[T]>): Promise<number>;
  update(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<DB[T]>): Promise<boolean>;
  remove(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean>;
}

// An INSERT per table: Kysely does not take `Insertable<DB[T]>` values for a generic
// table T, but it types a call through a map over the tables (a correlated union).
type Inserts = { [K in TenantTable]: (db: Kysely<DB>, values: Insertable<DB[K]>) => Promise<{ id: number }> };
const inserts: Inserts = {
  requests: (db, v) => db.insertInto('requests').values(v).returning('id').executeTakeFirstOrThrow(),
  quotes: (db, v) => db.insertInto('quotes').values(v).returning('id').executeTakeFirstOrThrow(),
  jobs: (db, v) => db.insertInto('jobs').values(v).returning('id').executeTakeFirstOrThrow(),
  invoices: (db, v) => db.insertInto('invoices').values(v).returning('id').executeTakeFirstOrThrow(),
  services: (db, v) => db.insertInto('services').values(v).returning('id').executeTakeFirstOrThrow(),
  tax_rates: (db, v) => db.insertInto('tax_rates').values(v).returning('id').executeTakeFirstOrThrow(),
  quote_templates: (db, v) => db.insertInto('quote_templates').values(v).returning('id').executeTakeFirstOrThrow(),
};

/**
 * The four row operations every such table needs, each scoped by workspace
 * (DESIGN convention 4). Callers pass the table's own `Insertable`/`Updateable`
 * values (from `tableCodec`), checked at the call.
 */
export function tenantRows<T extends TenantTable>(table: T): TenantRows<T> {
  // Kysely cannot type a builder over a generic table name (its alias types do not
  // resolve), so the builders below see one concrete table; the columns they name
  // exist in every TenantTable, and the values were checked against DB[T] by the signature
  // (the insert goes through `inserts`, typed per table).
  const t: TenantTable = table;
  const one = t as 'tax_rates';
  return {
    async find(db: Kysely<DB>, workspaceId: number, id: number, opts: { lock?: boolean } = {}) {
      const qb = db.selectFrom(one).selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
      return (await (opts.lock ? locked(db, qb) : qb).executeTakeFirst()) as Selectable<DB[T]> | undefined;
    },
    async insert(db: Kysely<DB>, values: Insertable<DB[T]>) {
      return Number((await inserts[table](db, values)).id);
    },
    async update(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<DB[T]>) {
      const r = await db
        .updateTable(one)
        .set(values)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    // E13: the deletions entry is written with the delete, in the caller's transaction.
    async remove(db: Kysely<DB>, workspaceId: number, id: number) {
      await touchReferrers(db, workspaceId, t, id); // F82: the references the delete clears
      const r = await db.deleteFrom(one).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      const gone = Number(r.numDeletedRows) > 0;
      if (gone) await recordDeletions(db, workspaceId, t, [id]);
      return gone;
    },
  };
}
