import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { AnyJson, Email, Id, Nullable, Str, Timestamp, UserRef, Uuid } from '../../kernel/schemas.ts';
import { AccessNotesInput, AddressInput, PROPERTY_TYPES } from '../properties/properties.schemas.ts';

export const CONTACT_TITLES = ['mr', 'mrs', 'miss', 'ms', 'dr', 'prof', 'rev'] as const;
export const CONTACT_TYPES = ['none', 'customer', 'lead', 'former_customer', 'contractor', 'partner', 'vendor', 'other'] as const;

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Phone = Str(50);

const optionalFields = {
  email: Type.Optional(Nullable(Email)),
  phone: Type.Optional(Nullable(Phone)),
  secondary_email: Type.Optional(Nullable(Email)),
  secondary_phone: Type.Optional(Nullable(Phone)),
  company: Type.Optional(Nullable(Str())),
  company_department: Type.Optional(Nullable(Str())),
  company_position: Type.Optional(Nullable(Str())),
  title: Type.Optional(Nullable(Type.Enum([...CONTACT_TITLES]))),
  type: Type.Optional(Type.Enum([...CONTACT_TYPES])),
  owner_id: Type.Optional(Nullable(Uuid)),
  info: Type.Optional(AnyJson),
  custom_fields: Type.Optional(AnyJson),
};

/** F300: the client's first property, made with the client in one transaction (A11's one form, E28's rows). */
export const NewClientProperty = Type.Object(
  { address: AddressInput, access_notes: AccessNotesInput, property_type: Type.Optional(Type.Enum([...PROPERTY_TYPES])) },
  { description: "The client's first property (role owner), created with the contact; an error in it creates neither" },
);
export type NewClientProperty = Static<typeof NewClientProperty>;

export const ContactCreate = Type.Object({ first_name: Name, last_name: Name, ...optionalFields, property: Type.Optional(NewClientProperty) });
export const ContactUpdate = Type.Object({ first_name: Type.Optional(Name), last_name: Type.Optional(Name), ...optionalFields });
export type ContactCreate = Static<typeof ContactCreate>;
export type ContactUpdate = Static<typeof ContactUpdate>;

export const Contact = Type.Object({
  id: Id,
  workspace_id: Id,
  first_name: Type.String(),
  last_name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  secondary_email: Nullable(Type.String()),
  secondary_phone: Nullable(Type.String()),
  company: Nullable(Type.String()),
  company_department: Nullable(Type.String()),
  company_position: Nullable(Type.String()),
  title: Nullable(Type.String()),
  type: Type.String(),
  owner_id: Nullable(Type.String()),
  info: AnyJson,
  custom_fields: AnyJson,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Contact = Static<typeof Contact>;

/** The single GET: owner and created_by expanded. */
export const ContactDetail = Type.Object({ ...Contact.properties, owner: Nullable(UserRef), created_by: Nullable(UserRef) });
export type ContactDetail = Static<typeof ContactDetail>;

export const CONTACT_SORT = ['id', 'first_name', 'last_name', 'email', 'company', 'type', 'created_at', 'updated_at'] as const;
export const ContactQuery = listQuery(CONTACT_SORT, {
  type: Type.Optional(Type.Enum([...CONTACT_TYPES])),
  owner_id: Type.Optional(Uuid),
});
export type ContactQuery = Static<typeof ContactQuery>;
