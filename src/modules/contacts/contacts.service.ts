import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { isForeignKeyViolation } from '../../db/database.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { checkReferences, userRefs } from '../../db/references.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { conflict, notFound } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import { checkCustomFields } from '../custom-fields/custom-fields.service.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { contactCodec, deleteContact, findContact, insertContact, listContacts, updateContact } from './contacts.repo.ts';
import type { Contact, ContactCreate, ContactDetail, ContactQuery, ContactUpdate } from './contacts.schemas.ts';

/** The single GET shape: `owner` and `created_by` expanded (one query for both). */
export async function getContactDetail(db: Kysely<DB>, workspaceId: number, id: number): Promise<ContactDetail> {
  const contact = await findContact(db, workspaceId, id);
  if (!contact) throw notFound('Contact');
  const { created_by, ...rest } = contact;
  const users = await userRefs(db, workspaceId, [contact.owner_id, created_by]);
  const ref = (uuid: string | null) => {
    const u = uuid ? users.get(uuid) : undefined;
    return u ? { id: u.id, first_name: u.first_name, last_name: u.last_name } : null;
  };
  return { ...rest, owner: ref(contact.owner_id), created_by: ref(created_by) };
}

/** Creates a contact inside the caller's transaction and emits `new_contact` (D16). */
export async function createContact(trx: Kysely<DB>, workspaceId: number, userId: string | null, body: ContactCreate) {
  const at = now();
  const { id } = await insertContact(trx, {
    ...contactCodec.encode({ type: 'none', ...body }),
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  const contact = await getContactDetail(trx, workspaceId, id);
  await emit(trx, workspaceId, 'new_contact', 'contacts', contact);
  return contact;
}

export function contactsService({ db }: AppContext): CrudService<ContactQuery, ContactCreate, ContactUpdate, Contact, ContactDetail> {
  return {
    list: (auth, query) => listContacts(db, auth.workspaceId, query),
    get: (auth, id) => getContactDetail(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, async (trx) => {
        await checkReferences(trx, auth.workspaceId, { users: { owner_id: body.owner_id } }); // D11
        await checkCustomFields(trx, auth.workspaceId, 'contact', body.custom_fields, { create: true }); // D23
        return createContact(trx, auth.workspaceId, auth.userId, body);
      }),
    update: (auth, id, body) =>
      transact(db, auth, async (trx) => {
        await checkReferences(trx, auth.workspaceId, { users: { owner_id: body.owner_id } });
        await checkCustomFields(trx, auth.workspaceId, 'contact', body.custom_fields, { create: false }); // D23
        const found = await updateContact(trx, auth.workspaceId, id, { ...contactCodec.encode(body), updated_at: now() });
        if (!found) throw notFound('Contact');
        return getContactDetail(trx, auth.workspaceId, id);
      }),
    remove: async (auth, id) => {
      // D12: permanent, and refused while requests, quotes, jobs or invoices point at it
      // (their foreign keys say so; property links go with the contact).
      try {
        await deleteWithAttachments(db, auth, 'contact', id, 'Contact', (trx) => deleteContact(trx, auth.workspaceId, id));
      } catch (err) {
        if (isForeignKeyViolation(err)) throw conflict('Contact has related records');
        throw err;
      }
    },
  };
}
