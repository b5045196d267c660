import { ContactCreate } from '../contacts/contacts.schemas.ts';
import { ADDRESS_FIELDS } from '../properties/properties.schemas.ts';
import { ServiceCreate } from '../services/services.schemas.ts';

// E28: what a CSV column can fill, per kind, and how a header finds its field without
// a mapping: case, spaces, underscores, dashes and dots do not count ("First Name",
// "first_name", "E-mail"), and a few common spreadsheet names are known (F302).

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
const CLIENT_FIELDS = [...CONTACT_FIELDS, ...ADDRESS_FIELDS, 'access_notes'] as const;
const SERVICE_FIELDS = ['name', 'description', 'price', 'sku', 'type', 'taxable'] as const;

export const IMPORT_FIELDS: Record<ImportKind, readonly string[]> = { clients: CLIENT_FIELDS, services: SERVICE_FIELDS };
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

/** The body schemas a row is checked against: the API's own (F303). */
export const ROW_SCHEMAS = { clients: ContactCreate, services: ServiceCreate } as const;

const ENUMS = new Set(['type', 'title']);
const yes = new Set(['true', 'yes', 'y', '1', 'x']);
const no = new Set(['false', 'no', 'n', '0']);

/** A cell as the API field's value: blank is absent; enums lower case; price a number; taxable a boolean (else left as text, so the check names it). */
function cellValue(field: string, cell: string): unknown {
  const text = cell.trim();
  if (field === 'price') {
    // "1,234.50", "$ 80", and "12,50" from a `;` file (a decimal comma).
    const plain = text.replace(/[\s$€£]/g, '');
    const dotted = /^\d+,\d{1,2}$/.test(plain) ? plain.replace(',', '.') : plain.replace(/,/g, '');
    return /^-?\d+(\.\d+)?$/.test(dotted) ? Number(dotted) : text;
  }
  if (field === 'taxable') return yes.has(text.toLowerCase()) ? true : no.has(text.toLowerCase()) ? false : text;
  return ENUMS.has(field) ? text.toLowerCase().replace(/[\s-]+/g, '_') : text;
}

/**
 * A record (field -> cell) as the body the API takes: a client's address fields and
 * access notes go into `property`, made only when one of them has a value.
 */
export function bodyOf(kind: ImportKind, record: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const address: Record<string, unknown> = {};
  let accessNotes: string | undefined;
  for (const [field, cell] of Object.entries(record)) {
    if (cell === undefined || cell.trim() === '') continue;
    const value = cellValue(field, cell);
    if (kind === 'clients' && (ADDRESS_FIELDS as readonly string[]).includes(field)) address[field] = value;
    else if (field === 'access_notes') accessNotes = cell.trim();
    else body[field] = value;
  }
  if (kind === 'clients' && (Object.keys(address).length || accessNotes)) body.property = { address, ...(accessNotes && { access_notes: accessNotes }) };
  return body;
}

/** The import field an API error path names: `property.address.city` -> `city`. */
export const fieldOfPath = (path: readonly (string | number)[]): string => String(path.at(-1) ?? '');
