import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const common = { allErrors: true, strict: false, allowUnionTypes: true } as const;

// Bodies are JSON and must carry the right types: no coercion ("12" is not 12),
// and every undeclared field is dropped (D5: unknown body fields are ignored).
const bodyAjv = new Ajv({ ...common, coerceTypes: false, useDefaults: false, removeAdditional: 'all' });
// Query strings and paths are text: coerce to the declared types.
const textAjv = new Ajv({ ...common, coerceTypes: 'array', useDefaults: true, removeAdditional: true });
addFormats(bodyAjv);
addFormats(textAjv);

export function registerValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
}

export { bodyAjv };
