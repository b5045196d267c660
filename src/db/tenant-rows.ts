import type { Kysely, Selectable } from 'kysely';
import { locked } from './locks.ts';
import type { DB } from './schema.ts';

/** Tables with an integer `id` and a `workspace_id`, written through the generic CRUD pattern. */
export type TenantTable = 'requests' | 'quotes' | 'jobs' | 'invoices' | 'services' | 'tax_rates' | 'quote_templates';

/**
 * The four row operations every such table needs, each scoped by workspace
 * (DESIGN convention 4). Values arrive encoded by the module's rowCodec.
 */
export function tenantRows<T extends TenantTable>(table: T) {
  // One concrete table gives the builder its types; these columns exist in every TenantTable.
  const t = table as 'tax_rates';
  type Row = Selectable<DB[T]>;
  return {
    /** `lock`: hold the row until commit (status transitions, D14). */
    async find(db: Kysely<DB>, workspaceId: number, id: number, opts: { lock?: boolean } = {}): Promise<Row | undefined> {
      const qb = db.selectFrom(t).selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
      return (await (opts.lock ? locked(db, qb) : qb).executeTakeFirst()) as Row | undefined;
    },
    async insert(db: Kysely<DB>, values: Record<string, unknown>): Promise<number> {
      const r = await db
        .insertInto(t)
        .values(values as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(r.id);
    },
    async update(db: Kysely<DB>, workspaceId: number, id: number, values: Record<string, unknown>): Promise<boolean> {
      const r = await db
        .updateTable(t)
        .set(values as never)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async remove(db: Kysely<DB>, workspaceId: number, id: number): Promise<boolean> {
      const r = await db.deleteFrom(t).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
