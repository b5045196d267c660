import type { Kysely } from 'kysely';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { notFound, type PathSegment } from '../../kernel/errors.ts';
import { createContact } from '../contacts/contacts.service.ts';
import { ADMINS_AND_MANAGERS, notifyRoles } from '../notifications-internal/internal-notifications.ts';
import { insertLink, insertProperty } from '../properties/properties.repo.ts';
import type { Request } from '../requests/requests.schemas.ts';
import { createRequest } from '../requests/requests.service.ts';
import { matchContact, workspaceExists } from './intake.repo.ts';
import { ADDRESS_KEYS } from './intake.schemas.ts';

type Address = Partial<Record<(typeof ADDRESS_KEYS)[number], string>>;

export interface IntakeInput {
  first_name: string;
  last_name: string;
  email?: string;
  phone?: string;
  company?: string;
  address?: Address;
  details?: string;
  custom_fields?: unknown;
  /** Where the body carries custom_fields, for D23's details (the form: `formData.customFields`). */
  customFieldsPath?: PathSegment[];
}

export interface IntakeResult {
  request: Request;
  contactId: number;
  propertyId: number | null;
}

/** SPEC: "Jane Q Public" -> first "Jane", last "Q Public". */
export function splitName(name: string | undefined): { first: string; last: string } {
  const parts = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return { first: parts[0] ?? '', last: parts.slice(1).join(' ') };
}

/**
 * The shared intake of the internal endpoint and the embedded form, inside the
 * caller's transaction: contact matched or created (new_contact), property created
 * and linked when an address is given, then the request (D13 number, new_request;
 * D23: the workspace's required request fields apply, and a refusal undoes the contact and property).
 * A matched contact is left as it is: a form must not rewrite a customer's record.
 */
export async function intake(trx: Kysely<DB>, workspaceId: number, userId: string | null, input: IntakeInput): Promise<IntakeResult> {
  if (!(await workspaceExists(trx, workspaceId))) throw notFound('Workspace');
  let contactId = await matchContact(trx, workspaceId, input.email, input.phone);
  if (contactId === null) {
    const contact = await createContact(trx, workspaceId, userId, {
      first_name: input.first_name,
      last_name: input.last_name,
      ...(input.email && { email: input.email }),
      ...(input.phone && { phone: input.phone }),
      ...(input.company && { company: input.company }),
    });
    contactId = contact.id;
  }
  let propertyId: number | null = null;
  const address = Object.fromEntries(ADDRESS_KEYS.map((k) => [k, input.address?.[k]?.trim() ?? ''])) as Record<(typeof ADDRESS_KEYS)[number], string>;
  if (Object.values(address).some(Boolean)) {
    const at = now();
    propertyId = await insertProperty(trx, workspaceId, { ...address, access_notes: null, property_type: 'single-family', created_at: at, updated_at: at });
    await insertLink(trx, workspaceId, { contact_id: contactId, property_id: propertyId, role: 'owner', created_at: at });
  }
  const request = await createRequest(
    trx,
    workspaceId,
    userId,
    {
      contact_id: contactId,
      property_id: propertyId,
      details: input.details ?? null,
      ...(input.custom_fields !== undefined && { custom_fields: input.custom_fields }),
    },
    { customFieldsPath: input.customFieldsPath },
  );
  // F330: the office hears of a new request in the app's Notifications, as of a quote approved.
  const data = { request_id: request.id, number: request.number, contact_id: contactId, first_name: input.first_name, last_name: input.last_name };
  await notifyRoles(trx, workspaceId, 'requests_new', ADMINS_AND_MANAGERS, { type: 'request', id: request.id }, data);
  return { request, contactId, propertyId };
}
