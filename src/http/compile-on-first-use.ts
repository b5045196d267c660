import type { ErrorObject } from 'ajv';
import type { FastifyInstance } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

// A route's validators and serializer are compiled when the route first needs them, not
// when it is registered (F180): the API has hundreds of schemas, a process serves a few of
// them most of the time, and the generated code of all of them held about 10 MB of the
// process's memory from the start.

/** Every compilation still pending: `compilePending()` runs them (tests: every schema compiles). */
const pending = new Set<() => unknown>();

/** Runs every compilation not yet done; true when there were some. */
export function compilePending(): boolean {
  const all = [...pending];
  for (const compile of all) compile();
  return all.length > 0;
}

/** `compile`'s result, made at the first call and kept; pending until then. */
function onFirstUse<T>(compile: () => T): () => T {
  let compiled: T | undefined;
  const get = (): T => {
    if (compiled === undefined) {
      compiled = compile();
      pending.delete(get);
    }
    return compiled;
  };
  pending.add(get);
  return get;
}

/** A validator in Fastify's form (a function with `errors`), compiled at its first call. */
export function validatorOnFirstUse(compile: () => ((data: unknown, ...rest: unknown[]) => boolean) & { errors?: ErrorObject[] | null }) {
  const check = onFirstUse(compile);
  const validate = (data: unknown, ...rest: unknown[]) => {
    const compiled = check();
    const ok = compiled(data, ...rest);
    validate.errors = compiled.errors;
    return ok;
  };
  validate.errors = null as ErrorObject[] | null | undefined;
  return validate;
}

/** Response serializers (fast-json-stringify, as Fastify's default), compiled at their first answer. */
export function registerSerializers(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => {
    const serialize = onFirstUse(() => fastJsonStringify(schema as object) as (body: unknown) => string);
    return (body: unknown) => serialize()(body);
  });
}
