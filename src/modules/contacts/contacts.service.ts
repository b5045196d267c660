import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { isForeignKeyViolation } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { conflict, invalidField, notFound } from '../../kernel/errors.ts';
import { emit, emitMany } from '../../outbox/emit.ts';
import { validateCustomFields } from '../custom-fields/custom-fields.service.ts';
import { createLinkedProperties, createLinkedProperty } from '../properties/properties.service.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { contactCodec, contactDetailOf, deleteContact, findContactDetail, findContactDetails, insertContact, insertContacts, listContacts, loadContactWrite, updateContact } from './contacts.repo.ts';
import type { Contact, ContactCreate, ContactDetail, ContactQuery, ContactUpdate } from './contacts.schemas.ts';

/** The single GET shape: `owner` and `created_by` expanded, in one statement. */
export async function getContactDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<ContactDetail> {
  const contact = await findContactDetail(db, workspaceId, id);
  if (!contact) throw notFound('Contact');
  return contact;
}

/**
 * Creates a contact inside the caller's transaction and emits `new_contact` (D16):
 * one statement loads the owner (D11), the acting user and the custom-field
 * definitions (D23, checked on every path: the API, the website form, the internal
 * endpoint), one inserts, and the answer is built from those two.
 */
export async function createContact(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: ContactCreate) {
  const { owner, createdBy, defs } = await loadContactWrite(trx, workspaceId, body.owner_id, userId, true);
  if (body.owner_id && !owner) throw invalidField(['owner_id'], `user ${body.owner_id} is not a member of this workspace`); // D11
  validateCustomFields(defs, body.custom_fields, { create: true }); // D23
  const at = now();
  const { property, ...fields } = body;
  const row = await insertContact(trx, {
    ...contactCodec.encode({ type: 'none', ...fields }),
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  const contact = contactDetailOf(row, owner, createdBy);
  if (property) await createLinkedProperty(trx, workspaceId, contact.id, property); // F300: both or neither
  await emit(trx, workspaceId, 'new_contact', 'contacts', contact);
  return contact;
}

/**
 * `createContact` for many bodies in the caller's transaction (E28's batches, F310): the
 * same checks (D11, D23) from one load per owner named, one INSERT for the contacts, two
 * for their properties, one for their `new_contact` events; the contacts in the order given.
 */
export async function createContacts(trx: Kysely<DB>, workspaceId: number, userId: string | null, bodies: ContactCreate[]): Promise<ContactDetail[]> {
  if (!bodies.length) return [];
  const loads = new Map<string | undefined, Awaited<ReturnType<typeof loadContactWrite>>>();
  for (const ownerId of new Set(bodies.map((b) => b.owner_id ?? undefined))) loads.set(ownerId, await loadContactWrite(trx, workspaceId, ownerId, userId, true));
  const at = now();
  const values = bodies.map((body) => {
    const { owner, defs } = loads.get(body.owner_id ?? undefined)!;
    if (body.owner_id && !owner) throw invalidField(['owner_id'], `user ${body.owner_id} is not a member of this workspace`); // D11
    validateCustomFields(defs, body.custom_fields, { create: true }); // D23
    const { property: _, ...fields } = body;
    return { ...contactCodec.encode({ type: 'none', ...fields }), workspace_id: workspaceId, created_by: userId, created_at: at, updated_at: at };
  });
  const rows = await insertContacts(trx, values);
  const contacts = rows.map((row, i) => {
    const { owner, createdBy } = loads.get(bodies[i].owner_id ?? undefined)!;
    return contactDetailOf(row, owner, createdBy);
  });
  const properties = bodies.flatMap((b, i) => (b.property ? [{ contactId: contacts[i].id, body: b.property }] : []));
  await createLinkedProperties(trx, workspaceId, properties); // F300: both or neither
  await emitMany(trx, workspaceId, 'new_contact', 'contacts', contacts);
  return contacts;
}

/** Updates a contact inside the caller's transaction and emits `contact_updated` (E14): the API's PUT and E28's rows that match by email. */
export async function updateContactIn(trx: Kysely<DB>, workspaceId: number, id: number, body: ContactUpdate): Promise<ContactDetail> {
  if (body.owner_id || body.custom_fields !== undefined) {
    const { owner, defs } = await loadContactWrite(trx, workspaceId, body.owner_id, null, body.custom_fields !== undefined);
    if (body.owner_id && !owner) throw invalidField(['owner_id'], `user ${body.owner_id} is not a member of this workspace`); // D11
    validateCustomFields(defs, body.custom_fields, { create: false }); // D23
  }
  const found = await updateContact(trx, workspaceId, id, { ...contactCodec.encode(body), updated_at: now() });
  if (!found) throw notFound('Contact');
  const contact = await getContactDetail(trx, workspaceId, id);
  await emit(trx, workspaceId, 'contact_updated', 'contacts', contact); // E14
  return contact;
}

/**
 * `updateContactIn` for many rows in the caller's transaction (E28's batches, F310): the
 * same checks, one UPDATE per row (their columns differ), then one read of the results
 * and one INSERT of their `contact_updated` events, in the order given.
 */
export async function updateContactsIn(trx: Kysely<DB>, workspaceId: number, items: { id: number; body: ContactUpdate }[]): Promise<void> {
  for (const { id, body } of items) {
    if (body.owner_id || body.custom_fields !== undefined) {
      const { owner, defs } = await loadContactWrite(trx, workspaceId, body.owner_id, null, body.custom_fields !== undefined);
      if (body.owner_id && !owner) throw invalidField(['owner_id'], `user ${body.owner_id} is not a member of this workspace`); // D11
      validateCustomFields(defs, body.custom_fields, { create: false }); // D23
    }
    if (!(await updateContact(trx, workspaceId, id, { ...contactCodec.encode(body), updated_at: now() }))) throw notFound('Contact');
  }
  const found = await findContactDetails(trx, workspaceId, [...new Set(items.map((i) => i.id))]);
  await emitMany(trx, workspaceId, 'contact_updated', 'contacts', items.map((i) => found.get(i.id)!)); // E14
}

export function contactsService({ db }: AppContext): CrudService<ContactQuery, ContactCreate, ContactUpdate, Contact, ContactDetail> {
  return {
    list: (auth, query) => listContacts(db, auth.workspaceId, query),
    get: (auth, id) => getContactDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, (trx) => createContact(trx, auth.workspaceId, auth.userId, body)),
    update: (auth, id, body) => transact(db, auth, (trx) => updateContactIn(trx, auth.workspaceId, id, body)),
    remove: async (auth, id) => {
      // D12: permanent, and refused while requests, quotes, jobs or invoices point at it
      // (their foreign keys say so; property links go with the contact).
      try {
        await deleteWithAttachments(db, auth, 'contact', id, 'Contact', async (trx) => {
          const gone = await deleteContact(trx, auth.workspaceId, id);
          if (gone) await emit(trx, auth.workspaceId, 'contact_deleted', 'contacts', { id }); // E14
          return gone;
        });
      } catch (err) {
        if (isForeignKeyViolation(err)) throw conflict('Contact has related records');
        throw err;
      }
    },
  };
}
