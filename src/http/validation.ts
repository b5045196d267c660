import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import type { PathSegment } from '../kernel/errors.ts';

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

/** Numeric fields of a query or path, checked as text before ajv coerces them. */
function numberProblems(schema: Schema, data: unknown): ErrorObject[] {
  if (!schema.properties || data === null || typeof data !== 'object') return [];
  const errors: ErrorObject[] = [];
  for (const [key, fieldSchema] of Object.entries(schema.properties)) {
    const kind = numericKind(fieldSchema);
    const raw = (data as Record<string, unknown>)[key];
    if (!kind || raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.some((v) => typeof v === 'string' && !(kind === 'integer' ? INTEGER : NUMBER).test(v))) {
      errors.push(problem([key], kind === 'integer' ? 'must be an integer in decimal digits' : 'must be a decimal number'));
    }
  }
  return errors;
}

/** Runs ajv, then E18's walk on what ajv kept; failures read as ajv errors, so the error handler words them per route (D4, D5). */
function withChecks(validate: ValidateFunction, schema: Schema, text: boolean) {
  const check = (data: unknown, ...rest: unknown[]) => {
    const early = text ? numberProblems(schema, data) : [];
    if (early.length) {
      check.errors = early;
      return false;
    }
    const ok = (validate as (d: unknown, ...r: unknown[]) => boolean)(data, ...rest);
    check.errors = ok ? unstorable(data) : (validate.errors ?? []);
    return ok && check.errors.length === 0;
  };
  check.errors = [] as ErrorObject[];
  return check;
}

export function registerValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const text = httpPart !== 'body';
    return withChecks((text ? textAjv : bodyAjv).compile(schema), schema as Schema, text);
  });
}

export { bodyAjv };
