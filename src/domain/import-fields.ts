// E28: what a CSV column can fill, per kind, and how a header finds its field without
// a mapping: case, spaces, underscores, dashes and dots do not count ("First Name",
// "first_name", "E-mail"), and a few common spreadsheet names are known (F302).
// Shared by the API (which matches headers) and the app's Import page (which shows
// the same matching as its mapping's defaults, A203).

export const IMPORT_KINDS = ['clients', 'services'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

const CONTACT_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'secondary_email',
  'secondary_phone',
  'company',
  'company_department',
  'company_position',
  'title',
  'type',
] as const;
/** A client's first property: its address (the properties API's fields) and access notes. */
export const PROPERTY_IMPORT_FIELDS = ['street', 'street_2', 'city', 'state', 'postal_code', 'country', 'access_notes'] as const;
const SERVICE_FIELDS = ['name', 'description', 'price', 'sku', 'type', 'taxable'] as const;

export const IMPORT_FIELDS: Record<ImportKind, readonly string[]> = { clients: [...CONTACT_FIELDS, ...PROPERTY_IMPORT_FIELDS], services: SERVICE_FIELDS };
/** Columns a file must have (by header or mapping): without them no row could be valid. */
export const REQUIRED_FIELDS: Record<ImportKind, readonly string[]> = { clients: ['first_name', 'last_name'], services: ['name'] };

/** Other names spreadsheets use, normalised (see `normalise`). */
const ALIASES: Record<string, string> = {
  first: 'first_name',
  firstname: 'first_name',
  givenname: 'first_name',
  last: 'last_name',
  lastname: 'last_name',
  surname: 'last_name',
  familyname: 'last_name',
  emailaddress: 'email',
  mail: 'email',
  phonenumber: 'phone',
  telephone: 'phone',
  mobile: 'phone',
  companyname: 'company',
  business: 'company',
  organization: 'company',
  organisation: 'company',
  address: 'street',
  address1: 'street',
  addressline1: 'street',
  street1: 'street',
  streetaddress: 'street',
  address2: 'street_2',
  addressline2: 'street_2',
  town: 'city',
  province: 'state',
  region: 'state',
  zip: 'postal_code',
  zipcode: 'postal_code',
  postcode: 'postal_code',
  unitprice: 'price',
  rate: 'price',
};

const normalise = (header: string) => header.toLowerCase().replace(/[\s_\-.]/g, '');

/** The field a header names for this kind, or null. */
export function fieldOfHeader(kind: ImportKind, header: string): string | null {
  const key = normalise(header);
  const fields = IMPORT_FIELDS[kind];
  const direct = fields.find((f) => normalise(f) === key);
  if (direct) return direct;
  const alias = ALIASES[key];
  return alias && fields.includes(alias) ? alias : null;
}
