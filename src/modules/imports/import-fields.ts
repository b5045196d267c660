import type { ImportKind } from '../../domain/import-fields.ts';
import { ContactCreate } from '../contacts/contacts.schemas.ts';
import { ADDRESS_FIELDS } from '../properties/properties.schemas.ts';
import { ServiceCreate } from '../services/services.schemas.ts';

// E28: the fields a CSV column can fill and how a header finds its field live in
// src/domain (the app's Import page shows the same matching); here, how a row of
// cells becomes the body the API's own checks take.
export { fieldOfHeader, IMPORT_FIELDS, IMPORT_KINDS, type ImportKind, REQUIRED_FIELDS } from '../../domain/import-fields.ts';
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
