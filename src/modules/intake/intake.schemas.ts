import { type Static, Type } from 'typebox';
import { AnyJson, Email, Id, Nullable, Str, Text, Timestamp } from '../../kernel/schemas.ts';

export const ADDRESS_KEYS = ['street', 'street_2', 'city', 'state', 'postal_code', 'country'] as const;
const address = {
  street: Type.Optional(Str()),
  street_2: Type.Optional(Str()),
  city: Type.Optional(Str()),
  state: Type.Optional(Str()),
  postal_code: Type.Optional(Str(50)),
  country: Type.Optional(Str(100)),
};

// ---- POST /api/requests (SPEC "Internal request creation") ----

export const InternalRequestBody = Type.Object({
  workspace_id: Id,
  name: Type.Optional(Str()),
  first_name: Type.Optional(Str(100)),
  last_name: Type.Optional(Str(100)),
  email: Type.Optional(Email),
  phone: Type.Optional(Str(50)),
  message: Type.Optional(Text()),
  ...address,
});
export type InternalRequestBody = Static<typeof InternalRequestBody>;

/** D24: the bare object, no envelope; D13: `number` as a string. */
export const InternalRequestResponse = Type.Object({
  id: Id,
  number: Type.String(),
  contact_id: Id,
  property_id: Nullable(Id),
  workspace_id: Id,
  details: Nullable(Type.String()),
  status: Type.String(),
  created_at: Timestamp,
});
export type InternalRequestResponse = Static<typeof InternalRequestResponse>;

// ---- POST /api/forms/embed-request (SPEC "Embedded form submission", Limits) ----

// E.164 recommended, but people type "(555) 123-4567": an optional +, then digits,
// spaces, dashes and parentheses, 7 to 20 characters in all, with at least 7 digits.
export const PHONE_PATTERN = '^(?=.{7,20}$)(?=(?:\\D*\\d){7})\\+?[0-9 ()-]+$';

export const FormData = Type.Object({
  firstName: Type.String({ minLength: 1, maxLength: 50 }),
  lastName: Type.String({ minLength: 1, maxLength: 50 }),
  email: Email,
  phone: Type.String({ pattern: PHONE_PATTERN, maxLength: 20 }),
  description: Type.String({ minLength: 5, maxLength: 1000 }),
  company: Type.Optional(Type.String({ maxLength: 100 })),
  property: Type.Optional(Type.Object(address)),
  customFields: Type.Optional(AnyJson), // D23: checked against the definitions, not here
  website: Type.Optional(Type.String({ maxLength: 1000 })), // D6 honeypot
});
export type FormData = Static<typeof FormData>;

export const EmbedRequestBody = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 200 }),
  workspaceId: Type.Optional(Id),
  formData: FormData,
  // E11: the form's Idempotency-Key (one per submission); checked before the schema (the route's
  // preValidation) for E11's 400 wording, so these bounds are what the document shows.
  idempotency_key: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$', description: '1 to 255 printable ASCII characters; a repeat answers the first answer' }),
  ),
});
export type EmbedRequestBody = Static<typeof EmbedRequestBody>;

export const EmbedRequestResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ requestId: Id, requestNumber: Type.String(), contactId: Id, propertyId: Nullable(Id) }),
});
export type EmbedRequestResponse = Static<typeof EmbedRequestResponse>;

// ---- POST /api/forms/embed-fields: what the website form draws besides its own fields ----

export const EmbedFieldsBody = Type.Object({
  apiKey: Type.String({ minLength: 1, maxLength: 200 }),
  workspaceId: Type.Optional(Id),
});
export type EmbedFieldsBody = Static<typeof EmbedFieldsBody>;

/** D23: a request custom field as the form draws it. */
export const FormField = Type.Object({
  key: Type.String(),
  label: Type.String(),
  type: Type.String({ description: 'text, number, boolean, date or select' }),
  options: Nullable(Type.Array(Type.String())),
  required: Type.Boolean(),
});

export const EmbedFieldsResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ custom_fields: Type.Array(FormField) }),
});
