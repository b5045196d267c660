import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { type AjvError, ajvDetails, type Detail, type PathSegment } from '../kernel/errors.ts';
import { validatorOnFirstUse } from './compile-on-first-use.ts';

// ajv-formats is CommonJS: under ESM its default import is `module.exports`, typed as
// the module's namespace; the plugin is also its own `default` property, typed as such.
const addFormats = addFormatsModule.default;

const common = { allErrors: true, strict: false, allowUnionTypes: true } as const;

// Bodies are JSON and must carry the right types: no coercion ("12" is not 12),
// and every undeclared field is dropped (D5: unknown body fields are ignored).
const bodyAjv = new Ajv({ ...common, coerceTypes: false, useDefaults: false, removeAdditional: 'all' });
// Query strings and paths are text: coerce to the declared types.
const textAjv = new Ajv({ ...common, coerceTypes: 'array', useDefaults: true, removeAdditional: true });
addFormats(bodyAjv);
addFormats(textAjv);

// E12 (F80): an instant in a query (the sync filters, the deletions feed's `since`) is
// a full date and time with `Z` or a `±HH:MM` offset, on a day that exists, with
// seconds 00-59 (no leap second, which JavaScript's Date cannot hold); `T` and `Z`
// upper case. Anything else (no offset, a bare date, 2026-02-30) is refused, so
// `new Date(x).toISOString()` never fails on what passed.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
export function isInstant(value: string): boolean {
  const m = INSTANT.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return mo >= 1 && d >= 1 && day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && !Number.isNaN(Date.parse(value));
}
textAjv.addFormat('date-time', { type: 'string', validate: isInstant });

/** E18: JSON values nested deeper than this (objects and arrays alike) are refused. */
export const MAX_DEPTH = 32;
// E18: PostgreSQL cannot store U+0000 in text or jsonb, nor can UTF-8 hold a lone surrogate.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what E18 refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** E18 for text read outside a schema (the hub's forms): no U+0000, no unpaired surrogate. */
export const storableText = (s: string): boolean => !UNSTORABLE.test(s);

const pointer = (path: PathSegment[]) => path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
const problem = (path: PathSegment[], message: string): ErrorObject => ({ instancePath: pointer(path), keyword: 'e18', schemaPath: '#', message, params: {} });

/**
 * E18: every string (and object key) that a database would refuse, and every
 * container nested deeper than MAX_DEPTH, as ajv-shaped errors. One walk with
 * an explicit stack, so hostile nesting cannot overflow the call stack.
 */
export function unstorable(value: unknown): ErrorObject[] {
  const errors: ErrorObject[] = [];
  const stack: { value: unknown; path: PathSegment[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) errors.push(problem(path, 'must not contain U+0000 or unpaired surrogates'));
    } else if (v !== null && typeof v === 'object') {
      if (path.length > MAX_DEPTH) {
        errors.push(problem(path, `must not be nested deeper than ${MAX_DEPTH} levels`));
        continue;
      }
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
      } else {
        const keys = Object.keys(v);
        if (keys.some((k) => UNSTORABLE.test(k))) errors.push(problem(path, 'keys must not contain U+0000 or unpaired surrogates'));
        for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (v as Record<string, unknown>)[keys[i]], path: [...path, keys[i]] });
      }
    }
    if (errors.length >= 20) break; // enough to say what is wrong
  }
  return errors;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** UTF-8 sequence length announced by a lead byte (1 for a byte that cannot lead). */
const sequenceLength = (b: number) => (b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1);

/**
 * A run of `%XX` escapes as text, each byte that is not part of valid UTF-8 (an
 * encoded surrogate, a stray continuation byte, `%FF`) as the lone surrogate
 * U+DC00+byte (PEP 383's "surrogateescape"), so E18's walk refuses it.
 */
function decodeEscapes(run: string): string {
  const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes[i]);
    try {
      out += strictUtf8.decode(bytes.subarray(i, i + n));
      i += n;
    } catch {
      out += String.fromCharCode(0xdc00 + bytes[i]);
      i += 1;
    }
  }
  return out;
}

const ESCAPES = /(?:%[0-9a-fA-F]{2})+/g;
function decodeQueryText(s: string): string {
  const text = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(ESCAPES, decodeEscapes); // a stray `%` stays as written
  }
}

/**
 * E18 in query strings (the router's parser): as Fastify's, but a value whose
 * escapes are not UTF-8 (`search=a%ED%A0%80b`) keeps them as lone surrogates instead
 * of as the raw text, so validation refuses it naming the field.
 */
export function parseQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeQueryText(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeQueryText(pair.slice(eq + 1));
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/**
 * E18 in paths (Fastify's rewriteUrl): a path that is not valid percent-encoding has
 * each undecodable escape run replaced by `%00` and each stray `%` by `%25`, so it is
 * routed and its parameter is refused by validation: `/contacts/%ED%A0%80` answers the
 * route's `Contact not found` (D5) instead of a bare `Not found`.
 */
export function routablePath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.includes('%')) return url;
  try {
    decodeURI(path);
    return url;
  } catch {
    const fixed = path
      .replace(/%(?![0-9a-fA-F]{2})/g, '%25')
      .replace(ESCAPES, (run) => {
        try {
          decodeURIComponent(run);
          return run;
        } catch {
          return '%00';
        }
      });
    return q < 0 ? fixed : fixed + url.slice(q);
  }
}

type Schema = { type?: unknown; anyOf?: Schema[]; oneOf?: Schema[]; properties?: Record<string, Schema> };

/** 'integer' or 'number' when a text field's schema is numeric only (a string branch accepts any text). */
function numericKind(schema: Schema | undefined): 'integer' | 'number' | null {
  if (!schema) return null;
  const types = [schema.type, ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map((s) => s.type)].flat().filter(Boolean);
  if (types.includes('string')) return null;
  if (types.includes('number')) return 'number';
  return types.includes('integer') ? 'integer' : null;
}

// D5: an id (and any integer in a path or query) is written in plain decimal, without
// sign, leading zeros, spaces, exponent or hex, so `0x10`, ` 1`, `1e1`, `+1` and `01` are
// not ids. ajv's coercion alone would read several of them as numbers.
const INTEGER = /^-?(0|[1-9]\d*)$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/**
 * The checker of a query's or path's numeric fields, as text before ajv coerces them:
 * which fields are numeric is read from the schema once, not at every request.
 */
function numberProblems(schema: Schema): (data: unknown) => ErrorObject[] {
  const numeric = Object.entries(schema.properties ?? {}).flatMap(([key, fieldSchema]) => {
    const kind = numericKind(fieldSchema);
    return kind ? [{ key, kind, format: kind === 'integer' ? INTEGER : NUMBER }] : [];
  });
  return (data) => {
    if (!numeric.length || data === null || typeof data !== 'object') return [];
    const errors: ErrorObject[] = [];
    for (const { key, kind, format } of numeric) {
      const raw = (data as Record<string, unknown>)[key];
      if (raw === undefined) continue;
      const values = Array.isArray(raw) ? raw : [raw];
      if (values.some((v) => typeof v === 'string' && !format.test(v))) {
        errors.push(problem([key], kind === 'integer' ? 'must be an integer in decimal digits' : 'must be a decimal number'));
      }
    }
    return errors;
  };
}

/**
 * E19: the keys of every object in a body, before ajv drops the undeclared ones (in
 * place, so the same objects can be compared afterwards). One walk with a stack.
 */
function keysBefore(value: unknown): { obj: Record<string, unknown>; path: PathSegment[]; keys: string[] }[] {
  const seen: { obj: Record<string, unknown>; path: PathSegment[]; keys: string[] }[] = [];
  const stack: { value: unknown; path: PathSegment[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object' || path.length > MAX_DEPTH) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    seen.push({ obj, path, keys });
    for (const k of keys) stack.push({ value: obj[k], path: [...path, k] });
  }
  return seen;
}

/** E19: the paths of the fields ajv dropped (`emial`, `line_items.0.qty`); a dropped object's own keys are not listed again. */
function droppedPaths(before: ReturnType<typeof keysBefore>): PathSegment[][] {
  const dropped: PathSegment[][] = [];
  const gone = new Set<string>();
  for (const { obj, path, keys } of before) {
    if (path.length && gone.has(path.slice(0, -1).join('\0'))) {
      gone.add(path.join('\0'));
      continue;
    }
    for (const k of keys) {
      if (!Object.hasOwn(obj, k)) {
        dropped.push([...path, k]);
        gone.add([...path, k].join('\0'));
      }
    }
  }
  return dropped;
}

/** E19: an unknown key inside a line item is refused (a misspelled `quantity` would bill the wrong amount). */
const inLineItem = (path: PathSegment[]) => path.length === 3 && path[0] === 'line_items' && typeof path[1] === 'number';

/** E19: the fields each validated body lost, named in the `Fieldwork-Ignored-Fields` header of its answer. */
const ignoredFields = new WeakMap<object, string>();
export const IGNORED_FIELDS_HEADER = 'fieldwork-ignored-fields';
/** A header has room for this many paths; the rest are counted (`+N more`). */
const MAX_IGNORED_LISTED = 50;

/**
 * The header value: paths joined by dots, outside printable ASCII (and `%`, `,`)
 * percent-encoded, since a header cannot carry every character a JSON key can.
 */
function ignoredHeader(paths: PathSegment[][]): string {
  const shown = paths.slice(0, MAX_IGNORED_LISTED).map((p) => p.join('.').replace(/[^\x20-\x24\x26-\x2b\x2d-\x7e]/gu, (c) => encodeURIComponent(c)));
  if (paths.length > MAX_IGNORED_LISTED) shown.push(`+${paths.length - MAX_IGNORED_LISTED} more`);
  return shown.join(', ');
}

/** Runs ajv, then E18's walk on what ajv kept; failures read as ajv errors, so the error handler words them per route (D4, D5). */
function withChecks(validate: ValidateFunction, schema: Schema, text: boolean) {
  const numbers = text ? numberProblems(schema) : () => [];
  const check = (data: unknown, ...rest: unknown[]) => {
    const early = numbers(data);
    if (early.length) {
      check.errors = early;
      return false;
    }
    const before = text || data === null || typeof data !== 'object' ? null : keysBefore(data);
    const ok = (validate as (d: unknown, ...r: unknown[]) => boolean)(data, ...rest);
    check.errors = ok ? unstorable(data) : (validate.errors ?? []);
    if (ok && before && check.errors.length === 0) {
      const dropped = droppedPaths(before);
      const refused = dropped.filter(inLineItem);
      if (refused.length) {
        check.errors = refused.map((p) => problem(p, 'is not a line item field'));
        return false;
      }
      if (dropped.length) ignoredFields.set(data as object, ignoredHeader(dropped));
    }
    return ok && check.errors.length === 0;
  };
  check.errors = [] as ErrorObject[];
  return check;
}

export function registerValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const text = httpPart !== 'body';
    return validatorOnFirstUse(() => withChecks((text ? textAjv : bodyAjv).compile(schema), schema as Schema, text));
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    const body = request.body;
    const ignored = body !== null && typeof body === 'object' ? ignoredFields.get(body) : undefined;
    if (ignored) reply.header(IGNORED_FIELDS_HEADER, ignored);
    done();
  });
}

export { bodyAjv };

/**
 * A body check outside a route (E28's rows): the same ajv, E18 walk and messages as a
 * request body, as the failing fields and their texts (empty when the body is valid).
 */
export function bodyChecker(schema: object): (data: unknown) => Detail[] {
  const check = withChecks(bodyAjv.compile(schema), schema as Schema, false);
  return (data) => (check(data) ? [] : ajvDetails(check.errors as AjvError[]));
}
