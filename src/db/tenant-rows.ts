import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { UntypedRow } from './codec.ts';
import { recordDeletions, touchReferrers } from './deletions.ts';
import { locked } from './locks.ts';
import type { DB } from './schema.ts';

/** Tables with an integer `id` and a `workspace_id`, written through the generic CRUD pattern. */
export type TenantTable = 'requests' | 'quotes' | 'jobs' | 'invoices' | 'services' | 'tax_rates' | 'quote_templates';

/** Values spread from the legacy `rowCodec.encode` (src/db/codec.ts); goes with it. */
type Untyped = UntypedRow;

export interface TenantRows<T extends TenantTable> {
  /** `lock`: hold the row until commit (status transitions, D14). */
  find(db: Kysely<DB>, workspaceId: number, id: number, opts?: { lock?: boolean }): Promise<Selectable<DB[T]> | undefined>;
  insert(db: Kysely<DB>, values: Insertable<DB[T]>): Promise<number>;
  /** @deprecated legacy `rowCodec` values; use `tableCodec` and the typed overload. */
  insert(db: Kysely<DB>, values: Untyped): Promise<number>;
  update(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<DB[T]>): Promise<boolean>;
  /** @deprecated legacy `rowCodec` values; use `tableCodec` and the typed overload. */
  update(db: Kysely<DB>, workspaceId: number, id: number, values: Untyped): Promise<boolean>;
  remove(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean>;
}

/**
 * The four row operations every such table needs, each scoped by workspace
 * (DESIGN convention 4). Callers pass the table's own `Insertable`/`Updateable`
 * values (from `tableCodec`), checked at the call.
 */
export function tenantRows<T extends TenantTable>(table: T): TenantRows<T> {
  // Kysely cannot type a builder over a generic table name (its alias types do not
  // resolve), so the builders below see one concrete table; the columns they name
  // exist in every TenantTable, and the values were checked against DB[T] by the signature.
  const t: TenantTable = table;
  const one = t as 'tax_rates';
  return {
    async find(db: Kysely<DB>, workspaceId: number, id: number, opts: { lock?: boolean } = {}) {
      const qb = db.selectFrom(one).selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
      return (await (opts.lock ? locked(db, qb) : qb).executeTakeFirst()) as Selectable<DB[T]> | undefined;
    },
    // The casts below serve only the legacy Untyped overload: once no module passes rowCodec
    // values, insert takes `.insertInto(table).values(values)` uncast and update
    // narrows its values like its table (the later pass; see test/layers.test.ts).
    async insert(db: Kysely<DB>, values: Insertable<DB[T]> | Untyped) {
      const r = await db
        .insertInto(one)
        .values(values as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(r.id);
    },
    async update(db: Kysely<DB>, workspaceId: number, id: number, values: Updateable<DB[T]> | Untyped) {
      const r = await db
        .updateTable(one)
        .set(values as never)
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
