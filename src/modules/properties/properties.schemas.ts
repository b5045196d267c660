import { type Static, Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import { Id, Nullable, Str, Timestamp } from '../../kernel/schemas.ts';

export const PROPERTY_TYPES = ['single-family', 'apartment', 'complex', 'townhouse', 'land', 'commercial', 'other'] as const;
export const PROPERTY_ROLES = ['owner', 'tenant', 'manager', 'agent', 'other'] as const;
export const ADDRESS_FIELDS = ['street', 'street_2', 'city', 'state', 'postal_code', 'country'] as const;

/**
 * Input address: every sub-field optional. On create the missing ones are '' (SPEC
 * Property); on update only the ones given change (D26).
 */
export const AddressInput = Type.Object({
  street: Type.Optional(Str(255)),
  street_2: Type.Optional(Str(255)),
  city: Type.Optional(Str(100)),
  state: Type.Optional(Str(100)),
  postal_code: Type.Optional(Str(32)),
  country: Type.Optional(Str(100)),
});
export type AddressInput = Static<typeof AddressInput>;

export const Address = Type.Object({
  street: Type.String(),
  street_2: Type.String(),
  city: Type.String(),
  state: Type.String(),
  postal_code: Type.String(),
  country: Type.String(),
});
export type Address = Static<typeof Address>;

const PropertyType = Type.Enum([...PROPERTY_TYPES]);
const Role = Type.Enum([...PROPERTY_ROLES]);

/**
 * POST /contacts/:id/properties. SPEC requires `address`; we also accept
 * `property_id` instead, to link an existing property of the workspace to
 * another contact (SPEC: a property is "linked to one or more contacts").
 * Exactly one of the two is required; the service checks it (422, D4).
 */
/** F228: how the crew gets in (gate codes, pets, keys); null or '' clears them. */
export const AccessNotesInput = Type.Optional(Nullable(Str(2000)));

export const PropertyCreate = Type.Object({
  address: Type.Optional(AddressInput),
  access_notes: AccessNotesInput,
  property_id: Type.Optional(Id),
  property_type: Type.Optional(PropertyType),
  role: Type.Optional(Role),
});
export type PropertyCreate = Static<typeof PropertyCreate>;

export const PropertyUpdate = Type.Object({
  address: Type.Optional(AddressInput),
  access_notes: AccessNotesInput,
  property_type: Type.Optional(PropertyType),
  role: Type.Optional(Role),
});
export type PropertyUpdate = Static<typeof PropertyUpdate>;

const propertyFields = {
  id: Id,
  address: Address,
  property_type: Type.String(),
  access_notes: Nullable(Type.String()),
  workspace_id: Id,
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A property as the contact routes return it: with that link's role (D26). */
export const ContactProperty = Type.Object({ ...propertyFields, role: Type.String() });
export type ContactProperty = Static<typeof ContactProperty>;

/** A property as GET /properties returns it: with every linked contact (D26). */
export const Property = Type.Object({ ...propertyFields, contact_ids: Type.Array(Id) });
export type Property = Static<typeof Property>;

export const PROPERTY_SORT = ['id', 'property_type', 'created_at', 'modified_at'] as const;

export const PropertyQuery = listQuery(PROPERTY_SORT, { property_type: Type.Optional(PropertyType) });
export type PropertyQuery = Static<typeof PropertyQuery>;

export const ContactPropertyQuery = listQuery(PROPERTY_SORT, {});
export type ContactPropertyQuery = Static<typeof ContactPropertyQuery>;

export const ContactPropertyParams = Type.Object({ id: Id, propertyId: Id });
