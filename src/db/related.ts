import { type ExpressionBuilder, type Kysely, type RawBuilder, sql } from 'kysely';
import { Type, type Static } from 'typebox';
import type { DB } from './schema.ts';
import { type Dialect, jsonBuild, jsonObjectFrom, type JsonText, parseJson } from './json-helpers.ts';
import { Id, Nullable, UserRef as UserRefSchema } from '../kernel/schemas.ts';

// The compact related objects the expanded single GETs carry ("Get quote and
// get job: expanded with related data"; invoice `contact` and `job`). Each is
// one indexed lookup scoped by workspace; a missing target is null.

export const ContactName = Type.Object({ id: Id, first_name: Type.String(), last_name: Type.String() });
export const ContactRef = Type.Object({ ...ContactName.properties, email: Nullable(Type.String()), phone: Nullable(Type.String()) });
export const PropertyRef = Type.Object({
  id: Id,
  address: Type.Object({
    street: Type.String(),
    street_2: Type.String(),
    city: Type.String(),
    state: Type.String(),
    postal_code: Type.String(),
    country: Type.String(),
  }),
  property_type: Type.String(),
  /** F228: gate codes, pets, keys; null when none. */
  access_notes: Nullable(Type.String()),
});
/** A request, quote or job, by number and name. */
export const DocumentRef = Type.Object({ id: Id, number: Type.Integer(), name: Nullable(Type.String()), status: Type.String() });
export const UserRef = UserRefSchema;
export type ContactName = Static<typeof ContactName>;

/**
 * A13 (F223): `expand=contact` on the lists of requests, quotes, jobs and invoices adds each
 * item's `contact` ({id, first_name, last_name}, or null); without it an item has exactly
 * SPEC's fields.
 */
export const ExpandContact = Type.Optional(Type.Enum(['contact'], { description: "`contact`: each item carries its client's `contact` ({id, first_name, last_name}, or null)" }));
/** A list item's optional client (present only with `expand=contact`). */
export const ListContact = Type.Optional(Nullable(ContactName));
/** A list row whose query selected `contactNameJson(...).as('contact')`, with that JSON parsed. */
export function withContact<R extends object>(row: R): R & { contact: ContactName | null } {
  const text = (row as { contact?: string | null }).contact;
  return Object.assign(row, { contact: text ? parseJson<ContactName>(text) : null });
}
export type ContactRef = Static<typeof ContactRef>;
export type PropertyRef = Static<typeof PropertyRef>;
export type DocumentRef = Static<typeof DocumentRef>;
export type UserRef = Static<typeof UserRef>;

// Subquery builders: `select ..., contactRefJson(eb, dialect, 'quotes.contact_id').as('contact')`
// puts the related object into the parent's own statement as JSON text (parse it
// with parseJson, json-helpers.ts). `column` is `<parent table>.<reference column>`;
// the target is looked up in the parent row's workspace (`<parent table>.workspace_id`),
// so a reference never reaches another workspace.

/** Any select's expression builder will do: the subquery reaches its parent only through `column`. */
type ParentBuilder = Pick<ExpressionBuilder<DB, never>, 'selectFrom'>;

/** `table.column` of the parent row: the reference and the parent's workspace_id. */
function parentRefs<V = number>(column: `${string}.${string}`) {
  const table = column.slice(0, column.indexOf('.'));
  return { ref: sql.ref<V>(column), workspace: sql.ref<number>(`${table}.workspace_id`) };
}

export function contactRefJson(eb: ParentBuilder, dialect: Dialect, column: `${string}.${string}`): RawBuilder<JsonText<ContactRef> | null> {
  const p = parentRefs(column);
  return jsonObjectFrom(
    dialect,
    eb
      .selectFrom('contacts')
      .select(['contacts.id', 'contacts.first_name', 'contacts.last_name', 'contacts.email', 'contacts.phone'])
      .where('contacts.workspace_id', '=', p.workspace)
      .where('contacts.id', '=', p.ref),
  );
}

export function contactNameJson(eb: ParentBuilder, dialect: Dialect, column: `${string}.${string}`): RawBuilder<JsonText<ContactName> | null> {
  const p = parentRefs(column);
  return jsonObjectFrom(
    dialect,
    eb
      .selectFrom('contacts')
      .select(['contacts.id', 'contacts.first_name', 'contacts.last_name'])
      .where('contacts.workspace_id', '=', p.workspace)
      .where('contacts.id', '=', p.ref),
  );
}

/** Built in one json_build_object, not jsonObjectFrom: a nested object must not cross a SQLite subquery (json-helpers.ts). */
export function propertyRefJson(eb: ParentBuilder, dialect: Dialect, column: `${string}.${string}`): RawBuilder<JsonText<PropertyRef> | null> {
  const p = parentRefs(column);
  const sub = eb
    .selectFrom('properties')
    .select((s) =>
      jsonBuild(dialect, {
        id: s.ref('properties.id'),
        address: jsonBuild(dialect, {
          street: s.ref('properties.street'),
          street_2: s.ref('properties.street_2'),
          city: s.ref('properties.city'),
          state: s.ref('properties.state'),
          postal_code: s.ref('properties.postal_code'),
          country: s.ref('properties.country'),
        }),
        property_type: s.ref('properties.property_type'),
        access_notes: s.ref('properties.access_notes'),
      }).as('obj'),
    )
    .where('properties.workspace_id', '=', p.workspace)
    .where('properties.id', '=', p.ref);
  return sql<JsonText<PropertyRef> | null>`(${sub})`;
}

/** The document a reference column names, by its name: `request_id`, `quote_id` or `job_id`. */
const DOCUMENT_TABLES = { request_id: 'requests', quote_id: 'quotes', job_id: 'jobs' } as const;
type DocumentColumn = keyof typeof DOCUMENT_TABLES;

/** A request, quote or job by its reference column (`'invoices.job_id'` reads jobs). */
export function documentRefJson(eb: ParentBuilder, dialect: Dialect, column: `${string}.${DocumentColumn}`): RawBuilder<JsonText<DocumentRef> | null> {
  return documentJson(eb, dialect, DOCUMENT_TABLES[column.slice(column.indexOf('.') + 1) as DocumentColumn], column);
}

function documentJson(
  eb: ParentBuilder,
  dialect: Dialect,
  table: (typeof DOCUMENT_TABLES)[DocumentColumn],
  column: `${string}.${string}`,
): RawBuilder<JsonText<DocumentRef> | null> {
  const p = parentRefs(column);
  return jsonObjectFrom(
    dialect,
    eb
      .selectFrom(table)
      .select(['id', 'number', 'name', 'status'])
      .where('workspace_id', '=', p.workspace)
      .where('id', '=', p.ref),
  );
}

/** A user by the uuid in `column` (`'quotes.salesperson_id'`), as `{id: uuid, first_name, last_name}`. */
export function userRefJson(eb: ParentBuilder, dialect: Dialect, column: `${string}.${string}`): RawBuilder<JsonText<UserRef> | null> {
  const p = parentRefs<string>(column);
  return jsonObjectFrom(
    dialect,
    eb
      .selectFrom('users')
      .select(['users.user_id as id', 'users.first_name', 'users.last_name'])
      .where('users.workspace_id', '=', p.workspace)
      .where('users.user_id', '=', p.ref),
  );
}

/**
 * A one-row derived table of the references a write is about to store, so the
 * builders above can load them before the write, in one statement, with the
 * same scoping: `db.selectFrom(pendingRow(workspaceId, {contact_id: 5}, {salesperson_id: uuid}).as('pending'))
 * .select((eb) => contactRefJson(eb, d, 'pending.contact_id').as('contact'))`.
 * Integer references and text (user uuid) references are cast so PostgreSQL compares like with like.
 */
export function pendingRow(workspaceId: number, ints: Record<string, number | null | undefined>, texts: Record<string, string | null | undefined> = {}) {
  const cols = [
    sql`cast(${workspaceId} as integer) as workspace_id`,
    ...Object.entries(ints).map(([k, v]) => sql`cast(${v ?? null} as integer) as ${sql.ref(k)}`),
    ...Object.entries(texts).map(([k, v]) => sql`cast(${v ?? null} as text) as ${sql.ref(k)}`),
  ];
  return sql<Record<string, unknown>>`(select ${sql.join(cols)})`;
}

/** The records a write can name, by kind, and what each loads as. */
interface RefTargets {
  contact: ContactRef;
  property: PropertyRef;
  request: DocumentRef;
  quote: DocumentRef;
  user: UserRef;
}
/**
 * The references a write names, by the name its answer gives each: the kind of
 * record and the id the body gives (a uuid for users; undefined or null: none).
 */
export type NamedRefs = Record<string, readonly ['contact' | 'property' | 'request' | 'quote', number | null | undefined] | readonly ['user', string | null | undefined]>;
export type LoadedRefs<N extends NamedRefs> = { [K in keyof N]: RefTargets[N[K][0]] | null };

/**
 * The shared piece of "load what a write names before writing it" (D11), for
 * one statement: `from` is the pendingRow of the named ids, `select` its JSON
 * subqueries (one per name, aliased by it), to which the caller adds what else
 * it loads (e.g. its D23 definitions); `read` parses the row into the records
 * and lists the names given but not found in the workspace.
 *
 *     const p = pendingRefs(ws, { contact: ['contact', body.contact_id], salesperson: ['user', body.salesperson_id] });
 *     const row = await db.selectFrom(p.from).select((eb) => [...p.select(eb, d), defs(eb).as('fields')]).executeTakeFirstOrThrow();
 *     const { refs, missing } = p.read(row);
 */
export function pendingRefs<N extends NamedRefs>(workspaceId: number, named: N) {
  const names = Object.keys(named) as (keyof N & string)[];
  const ints: Record<string, number | null | undefined> = {};
  const texts: Record<string, string | null | undefined> = {};
  for (const name of names) {
    const ref = named[name];
    if (ref[0] === 'user') texts[name] = ref[1];
    else ints[name] = ref[1];
  }
  const json = (eb: ParentBuilder, dialect: Dialect, name: keyof N & string): RawBuilder<JsonText<RefTargets[RefKind]> | null> => {
    const column = `pending.${name}` as const;
    const kind = named[name][0];
    if (kind === 'contact') return contactRefJson(eb, dialect, column);
    if (kind === 'property') return propertyRefJson(eb, dialect, column);
    if (kind === 'user') return userRefJson(eb, dialect, column);
    return documentJson(eb, dialect, kind === 'request' ? 'requests' : 'quotes', column);
  };
  return {
    // Built when asked for: a loader compiled once per shape (shapedQuery) only reads.
    get from() {
      return pendingRow(workspaceId, ints, texts).as('pending');
    },
    select: (eb: ParentBuilder, dialect: Dialect) => names.map((name) => json(eb, dialect, name).as(name)),
    read(row: { [K in keyof N]: JsonText<RefTargets[RefKind]> | null }): { refs: LoadedRefs<N>; missing: (keyof N & string)[] } {
      const refs: Partial<Record<keyof N, RefTargets[RefKind] | null>> = {};
      const missing: (keyof N & string)[] = [];
      for (const name of names) {
        refs[name] = parseJson(row[name]);
        const given = named[name][1];
        if (given !== undefined && given !== null && refs[name] === null) missing.push(name);
      }
      return { refs: refs as LoadedRefs<N>, missing };
    },
  };
}
type RefKind = keyof RefTargets;

// The awaited lookups below remain for callers not yet moved to the builders
// above (one round trip each); new reads use the builders.

type Db = Kysely<DB>;

export async function propertyRef(db: Db, workspaceId: number, id: number | null) {
  if (id === null) return null;
  const p = await db.selectFrom('properties').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!p) return null;
  const { street, street_2, city, state, postal_code, country } = p;
  return { id: p.id, address: { street, street_2, city, state, postal_code, country }, property_type: p.property_type };
}

