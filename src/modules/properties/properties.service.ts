import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { checkReferences } from '../../db/references.ts';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { conflict, type Detail, notFound, ValidationError } from '../../kernel/errors.ts';
import type { PageResult } from '../../db/list-query.ts';
import {
  contactExists,
  deleteLink,
  findContactProperty,
  insertLink,
  insertLinks,
  insertProperties,
  insertProperty,
  linkExists,
  listContactProperties,
  listProperties,
  updateLinkRole,
  updateProperty,
} from './properties.repo.ts';
import {
  ADDRESS_FIELDS,
  type AddressInput,
  type ContactProperty,
  type ContactPropertyQuery,
  type Property,
  type PropertyCreate,
  type PropertyQuery,
  type PropertyUpdate,
} from './properties.schemas.ts';

export interface PropertiesService {
  list(auth: AuthContext, query: PropertyQuery): Promise<PageResult<Property>>;
  listForContact(auth: AuthContext, contactId: number, query: ContactPropertyQuery): Promise<PageResult<ContactProperty>>;
  get(auth: AuthContext, contactId: number, propertyId: number): Promise<ContactProperty>;
  create(auth: AuthContext, contactId: number, body: PropertyCreate): Promise<ContactProperty>;
  update(auth: AuthContext, contactId: number, propertyId: number, body: PropertyUpdate): Promise<ContactProperty>;
  unlink(auth: AuthContext, contactId: number, propertyId: number): Promise<void>;
}

/** Only the sub-fields given, as columns (D26: a partial address changes only those). */
function addressColumns(address: AddressInput | undefined): Partial<Record<(typeof ADDRESS_FIELDS)[number], string>> {
  const out: Partial<Record<(typeof ADDRESS_FIELDS)[number], string>> = {};
  for (const f of ADDRESS_FIELDS) if (address?.[f] !== undefined) out[f] = address[f];
  return out;
}

/** F228: blank access notes are none (null), so "has notes" is one test for every reader. */
const accessNotes = (notes: string | null | undefined) => (notes === undefined ? undefined : notes?.trim() ? notes : null);

/** Our extension (see PropertyCreate): exactly one of `address` and `property_id`. */
function checkCreateShape(body: PropertyCreate): void {
  const details: Detail[] = [];
  if (body.address === undefined && body.property_id === undefined) {
    details.push({ path: ['address'], message: 'address is required (or property_id to link an existing property)' });
  }
  if (body.address !== undefined && body.property_id !== undefined) {
    details.push({ path: ['property_id'], message: 'give either address or property_id, not both' });
  }
  if (body.property_id !== undefined && body.property_type !== undefined) {
    // Linking must not silently retype a property other contacts share; PUT does that.
    details.push({ path: ['property_type'], message: 'property_type applies to a new property; change it with PUT' });
  }
  if (details.length) throw new ValidationError(details);
}

async function requireContact(db: Kysely<DB>, workspaceId: number, contactId: number): Promise<void> {
  if (!(await contactExists(db, workspaceId, contactId))) throw notFound('Contact');
}

async function linkedOrThrow(db: Kysely<DB>, workspaceId: number, contactId: number, propertyId: number): Promise<ContactProperty> {
  const property = await findContactProperty(db, workspaceId, contactId, propertyId);
  if (!property) throw notFound('Property');
  return property;
}

type LinkedPropertyBody = Pick<PropertyCreate, 'access_notes' | 'property_type' | 'role'> & { address: AddressInput };

/** A new property's columns: absent address parts blank, the default type, blank notes none. */
function newPropertyColumns(body: LinkedPropertyBody, at: string) {
  const address = { street: '', street_2: '', city: '', state: '', postal_code: '', country: '', ...addressColumns(body.address) };
  return { ...address, property_type: body.property_type ?? 'single-family', access_notes: accessNotes(body.access_notes) ?? null, created_at: at, updated_at: at };
}

/**
 * A new property linked to an existing contact, inside the caller's transaction: the
 * properties API, and a client created with its first property (F300: contacts, imports).
 */
export async function createLinkedProperty(trx: Kysely<DB>, workspaceId: number, contactId: number, body: LinkedPropertyBody): Promise<ContactProperty> {
  const at = now();
  const propertyId = await insertProperty(trx, workspaceId, newPropertyColumns(body, at));
  await insertLink(trx, workspaceId, { contact_id: contactId, property_id: propertyId, role: body.role ?? 'owner', created_at: at });
  return linkedOrThrow(trx, workspaceId, contactId, propertyId);
}

/** `createLinkedProperty` for many contacts (E28's batches): two statements, nothing read back (F310). */
export async function createLinkedProperties(trx: Kysely<DB>, workspaceId: number, items: { contactId: number; body: LinkedPropertyBody }[]): Promise<void> {
  const at = now();
  const ids = await insertProperties(trx, workspaceId, items.map((i) => newPropertyColumns(i.body, at)));
  await insertLinks(trx, workspaceId, items.map((i, n) => ({ contact_id: i.contactId, property_id: ids[n], role: i.body.role ?? 'owner', created_at: at })));
}

export function propertiesService({ db }: AppContext): PropertiesService {
  return {
    list: (auth, query) => listProperties(db, auth.workspaceId, query),

    listForContact: async (auth, contactId, query) => {
      await requireContact(db, auth.workspaceId, contactId);
      return listContactProperties(db, auth.workspaceId, contactId, query);
    },

    get: async (auth, contactId, propertyId) => {
      await requireContact(db, auth.workspaceId, contactId);
      return linkedOrThrow(db, auth.workspaceId, contactId, propertyId);
    },

    create: async (auth, contactId, body) => {
      checkCreateShape(body);
      const ws = auth.workspaceId;
      try {
        // The property and its link in one transaction.
        return await transact(db, auth, async (trx) => {
          await requireContact(trx, ws, contactId);
          const at = now();
          let propertyId: number;
          if (body.property_id !== undefined) {
            propertyId = body.property_id;
            await checkReferences(trx, ws, { ids: { property_id: ['properties', propertyId] } }); // D11
            if (await linkExists(trx, ws, contactId, propertyId)) throw conflict('Property is already linked to this contact');
          } else {
            return await createLinkedProperty(trx, ws, contactId, { ...body, address: body.address ?? {} });
          }
          await insertLink(trx, ws, { contact_id: contactId, property_id: propertyId, role: body.role ?? 'owner', created_at: at });
          return linkedOrThrow(trx, ws, contactId, propertyId);
        });
      } catch (err) {
        // A concurrent request won the race: the same answers as if it had come first.
        if (isUniqueViolation(err)) throw conflict('Property is already linked to this contact');
        if (isForeignKeyViolation(err)) throw notFound('Contact');
        throw err;
      }
    },

    update: (auth, contactId, propertyId, body) =>
      transact(db, auth, async (trx) => {
        const ws = auth.workspaceId;
        await requireContact(trx, ws, contactId);
        if (!(await linkExists(trx, ws, contactId, propertyId))) throw notFound('Property');
        // The property is shared by its contacts: address and type change for all of them;
        // the role belongs to this contact's link only (D26).
        const values = {
          ...addressColumns(body.address),
          ...(body.property_type !== undefined && { property_type: body.property_type }),
          ...(body.access_notes !== undefined && { access_notes: accessNotes(body.access_notes) }),
        };
        await updateProperty(trx, ws, propertyId, { ...values, updated_at: now() });
        if (body.role !== undefined) await updateLinkRole(trx, ws, contactId, propertyId, body.role);
        return linkedOrThrow(trx, ws, contactId, propertyId);
      }),

    unlink: async (auth, contactId, propertyId) => {
      // D12/SPEC: only the link goes; the property stays in GET /properties.
      await transact(db, auth, async (trx) => {
        await requireContact(trx, auth.workspaceId, contactId);
        if (!(await deleteLink(trx, auth.workspaceId, contactId, propertyId))) throw notFound('Property');
      });
    },
  };
}
