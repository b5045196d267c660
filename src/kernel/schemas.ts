import { type Static, type TSchema, Type } from 'typebox';

// Building blocks for every module's schemas: bounded ids, strings with a
// maximum length, nullable fields, and the SPEC envelopes.

const MAX_INT = 2_147_483_647;
export const Id = Type.Integer({ minimum: 1, maximum: MAX_INT });
export const Uuid = Type.String({ format: 'uuid', maxLength: 36 });
export const DATE_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$';
export const TIME_PATTERN = '^([01]\\d|2[0-3]):[0-5]\\d$';
export const DateString = Type.String({ pattern: DATE_PATTERN, maxLength: 10 });
export const TimeString = Type.String({ pattern: TIME_PATTERN, maxLength: 5 });
export const Timestamp = Type.String();
export const Email = Type.String({ format: 'email', maxLength: 254 });

export const Str = (maxLength = 255) => Type.String({ maxLength });
export const Text = (maxLength = 10_000) => Type.String({ maxLength });

/**
 * `T | null` as `type: [T, 'null']` (or `null` added to an enum) rather than anyOf:
 * fast-json-stringify serializes anyOf by running a validator per field, which is
 * slow and throws on output it can't match. Valid JSON Schema and OpenAPI 3.1 alike.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const plain = JSON.parse(JSON.stringify(schema)) as { type?: unknown; enum?: unknown[] };
  if (typeof plain.type === 'string') return Type.Unsafe<Static<T> | null>({ ...plain, type: [plain.type, 'null'] });
  if (Array.isArray(plain.enum)) {
    // With its `type` (F125): client generators read an enum without one as not nullable.
    const types = [...new Set(plain.enum.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)))];
    return Type.Unsafe<Static<T> | null>({ ...plain, type: [...types, 'null'], enum: [...plain.enum, null] });
  }
  return Type.Union([schema, Type.Null()]);
}

/** Any JSON value, capped only by the body limit (SPEC `info`, `custom_fields`, `data`). */
export const AnyJson = Type.Unknown();

/** Comma-separated list of values from `values`, e.g. `status=draft,sent`. */
export function CsvOf(values: readonly string[]) {
  const one = values.map((v) => v.replace(/[^\w-]/g, '')).join('|');
  return Type.String({ pattern: `^(${one})(,(${one}))*$`, maxLength: 1000, description: `comma-separated: ${values.join(', ')}` });
}
/**
 * The decimal integers 1..max as a regular expression, without sign or leading zeros
 * (D5): one alternative per digit that can stay below max's, e.g. 1..2147483647.
 */
function decimalsUpTo(max: number): string {
  const digits = String(max);
  const alternatives = [`[1-9]\\d{0,${digits.length - 2}}`]; // fewer digits than max
  for (let i = 0; i < digits.length; i++) {
    const low = i === 0 ? 1 : 0;
    const d = Number(digits[i]);
    if (d > low) alternatives.push(`${digits.slice(0, i)}[${low}-${d - 1}]\\d{${digits.length - i - 1}}`);
  }
  alternatives.push(digits);
  return `(?:${alternatives.join('|')})`;
}
const ID_TEXT = decimalsUpTo(MAX_INT);
/** F242: ids past the id column's range (2147483647) are refused like any other bad value, never sent to the database. */
export const CSV_IDS_PATTERN = `^${ID_TEXT}(,${ID_TEXT})*$`;
/** Comma-separated ids, e.g. `id_in=1,2,3`. */
export const CsvIds = Type.String({ pattern: CSV_IDS_PATTERN, maxLength: 2000 });
export const CsvUuids = Type.String({ pattern: '^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36})*$', maxLength: 3800 });
export const csv = (value: string): string[] => value.split(',').filter(Boolean);

export const IdParams = Type.Object({ id: Id });

export const Ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });
export const Pagination = Type.Object({ page: Type.Integer(), per_page: Type.Integer(), total_pages: Type.Integer() });
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: Pagination });
export const Deleted = Ok(Type.Object({ deleted: Type.Literal(true) }));

export const UserRef = Type.Object({ id: Uuid, first_name: Nullable(Type.String()), last_name: Nullable(Type.String()) });
