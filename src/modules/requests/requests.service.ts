import type { Kysely } from 'kysely';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import type { DB } from '../../db/schema.ts';
import { nextNumber } from '../../db/numbering.ts';
import { checkReferences } from '../../db/references.ts';
import type { AppContext } from '../../http/context.ts';
import type { CrudService } from '../../http/crud.ts';
import { notFound, type PathSegment } from '../../kernel/errors.ts';
import { emit } from '../../outbox/emit.ts';
import { deleteWithAttachments } from '../uploads/attachments.ts';
import { insertRequest, listRequests, loadRequestInputs, requestCodec, requestContact, requestOf, requests, updateRequestRow } from './requests.repo.ts';
import type { NewRequestPayload, Request, RequestCreate, RequestListItem, RequestQuery, RequestUpdate } from './requests.schemas.ts';
import { validateCustomFields } from '../custom-fields/custom-fields.service.ts';
import type { ContactRef } from '../../db/related.ts';

export async function getRequest(db: Kysely<DB>, workspaceId: number, id: number): Promise<Request> {
  const row = await requests.find(db, workspaceId, id);
  if (!row) throw notFound('Request');
  return requestOf(row);
}

/**
 * D33: the `new_request` webhook data. `name` is the request's, else the
 * contact's full name; `email`, `phone` the contact's; `service_type` from
 * `data.service_type`; `message` the details. Shared by every create path (D16).
 * `loaded`: the request's contact, when the caller already loaded it.
 */
export async function newRequestPayload(db: Kysely<DB>, workspaceId: number, request: Request, loaded?: ContactRef | null): Promise<NewRequestPayload> {
  const contact = loaded !== undefined ? loaded : request.contact_id ? await requestContact(db, workspaceId, request.contact_id) : undefined;
  const fullName = contact ? `${contact.first_name} ${contact.last_name}`.trim() : '';
  const data = request.data;
  const serviceType = data && typeof data === 'object' && 'service_type' in data ? (data as { service_type: unknown }).service_type : null;
  return {
    id: request.id,
    name: request.name || fullName || null,
    email: contact?.email ?? null,
    phone: contact?.phone ?? null,
    service_type: typeof serviceType === 'string' ? serviceType : null,
    message: request.details,
    status: request.status,
    created_at: request.created_at,
  };
}

const refsOf = (body: RequestCreate | RequestUpdate) => ({
  ids: {
    contact_id: ['contacts', body.contact_id] as ['contacts', number | null | undefined],
    property_id: ['properties', body.property_id] as ['properties', number | null | undefined],
  },
  users: { assignee_id: body.assignee_id },
});

/**
 * The one function that creates a request, inside the caller's transaction:
 * D23 custom fields (required ones included), D11 checks, the D13 number and
 * the `new_request` event (D16, D33), for the REST, form and internal endpoints
 * alike. `customFieldsPath`: where the caller's body carries them (the form's
 * `formData.customFields`).
 */
export async function createRequest(
  trx: Kysely<DB>,
  workspaceId: number,
  userId: string | null,
  input: RequestCreate,
  { customFieldsPath }: { customFieldsPath?: PathSegment[] } = {},
): Promise<Request> {
  const inputs = await loadRequestInputs(trx, workspaceId, input, { fields: true });
  validateCustomFields(inputs.defs, input.custom_fields, { create: true, pathPrefix: customFieldsPath }); // D23, on every create path
  if (inputs.missing) await checkReferences(trx, workspaceId, refsOf(input)); // D11: names each missing reference
  const number = await nextNumber(trx, workspaceId, 'requests');
  const at = now();
  const request = await insertRequest(trx, {
    ...requestCodec.encode({ status: 'new', ...input }),
    number,
    workspace_id: workspaceId,
    created_by: userId,
    created_at: at,
    updated_at: at,
  });
  await emit(trx, workspaceId, 'new_request', 'requests', await newRequestPayload(trx, workspaceId, request, inputs.refs.contact));
  return request;
}

const REF_FIELDS = ['contact_id', 'property_id', 'assignee_id'] as const;

const sameRecord = (a: Request, b: Request) => JSON.stringify({ ...a, updated_at: null }) === JSON.stringify({ ...b, updated_at: null });

/** A partial update (PUT or the status endpoint); `request_updated` when anything changed (D16). */
export async function updateRequest(trx: Kysely<DB>, workspaceId: number, id: number, body: RequestUpdate): Promise<Request> {
  const row = await requests.find(trx, workspaceId, id, { lock: true });
  if (!row) throw notFound('Request');
  if (body.custom_fields !== undefined || REF_FIELDS.some((f) => body[f] !== undefined)) {
    const inputs = await loadRequestInputs(trx, workspaceId, body, { fields: body.custom_fields !== undefined });
    validateCustomFields(inputs.defs, body.custom_fields, { create: false }); // D23
    if (inputs.missing) await checkReferences(trx, workspaceId, refsOf(body)); // D11
  }
  const after = await updateRequestRow(trx, workspaceId, id, { ...requestCodec.encode(body), updated_at: now() });
  if (!sameRecord(requestOf(row), after)) await emit(trx, workspaceId, 'request_updated', 'requests', after);
  return after;
}

export function requestsService({ db }: AppContext): CrudService<RequestQuery, RequestCreate, RequestUpdate, RequestListItem, Request> {
  return {
    list: (auth, query) => listRequests(db, auth.workspaceId, query),
    get: (auth, id) => getRequest(db, auth.workspaceId, id),
    create: (auth, body) =>
      transact(db, auth, (trx) => createRequest(trx, auth.workspaceId, auth.userId, body)),
    update: (auth, id, body) =>
      transact(db, auth, (trx) => updateRequest(trx, auth.workspaceId, id, body)),
    remove: async (auth, id) => {
      // D12: permanent, with its upload links and comments; quotes, jobs and events that named it keep going without it.
      await deleteWithAttachments(db, auth, 'request', id, 'Request', async (trx) => {
        const gone = await requests.remove(trx, auth.workspaceId, id);
        if (gone) await emit(trx, auth.workspaceId, 'request_deleted', 'requests', { id }); // E14
        return gone;
      });
    },
  };
}
