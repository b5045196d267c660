import type { FastifyInstance } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import type { AuthContext } from './auth.ts';
import type { ValidationStyle } from './error-handler.ts';
import type { PageResult } from '../db/list-query.ts';
import { Deleted, IdParams, Ok, Page } from '../kernel/schemas.ts';

/** Every delete's answer (SPEC); also the route's `config.envelope`, so E11 stores the same bytes. */
export const deletedEnvelope = () => ({ success: true as const, data: { deleted: true as const } });

/**
 * What a resource's service offers the generic CRUD routes. A resource whose
 * writes answer `meta` beside `data` (jobs, E21) returns both as `Written`.
 */
export interface CrudService<Q, C, U, Item, Detail, Written = Detail> {
  list(auth: AuthContext, query: Q): Promise<PageResult<Item>>;
  get(auth: AuthContext, id: number): Promise<Detail>;
  create(auth: AuthContext, body: C): Promise<Written>;
  update(auth: AuthContext, id: number, body: U): Promise<Written>;
  remove(auth: AuthContext, id: number): Promise<void>;
}

/** A create's or update's answer with `meta` (given with `schemas.meta`). */
export interface WithMeta<D, M> {
  data: D;
  meta: M;
}

export interface CrudOptions<TQ extends TSchema, TC extends TSchema, TU extends TSchema, TI extends TSchema, TD extends TSchema, TM extends TSchema = TSchema> {
  /** e.g. `/contacts` */
  path: string;
  /** Singular name for texts: `Contact` -> "Contact not found". */
  resource: string;
  /** Scope prefix: `contacts` -> contacts:read / contacts:write. */
  scope: string;
  validation?: ValidationStyle;
  /** `meta`: the create and update answers carry it beside `data`, and the service returns both (WithMeta). */
  schemas: { query: TQ; create: TC; update: TU; item: TI; detail: TD; meta?: TM };
  service: CrudService<Static<TQ>, Static<TC>, Static<TU>, Static<TI>, Static<TD>, Static<TD> | WithMeta<Static<TD>, Static<TM>>>;
}

/** SPEC "Generic CRUD pattern": the five routes of a resource, with their scopes and schemas. */
export function crudRoutes<TQ extends TSchema, TC extends TSchema, TU extends TSchema, TI extends TSchema, TD extends TSchema, TM extends TSchema = TSchema>(
  fastify: FastifyInstance,
  o: CrudOptions<TQ, TC, TU, TI, TD, TM>,
): void {
  // The schemas validate and serialize. Fastify wraps a route's request types in
  // conditional types (UndefinedToUnknown<KeysOf<..>>) that TypeScript leaves
  // unresolved over a generic schema, with or without the TypeBox provider, so the
  // generic query and bodies are narrowed to what their schema validated; the
  // concrete id params are typed by the route generic.
  const app = fastify;
  type IdParams = Static<typeof IdParams>;
  const tags = [o.resource];
  const read = { scope: `${o.scope}:read`, validation: o.validation, notFound: { id: o.resource } };
  const write = { ...read, scope: `${o.scope}:write` };
  const { service } = o;
  const meta = o.schemas.meta;
  const written = meta ? Type.Object({ success: Type.Literal(true), data: o.schemas.detail, meta }) : Ok(o.schemas.detail);
  const answer = (out: Static<TD> | WithMeta<Static<TD>, Static<TM>>) => (meta ? { success: true, ...(out as WithMeta<Static<TD>, Static<TM>>) } : { success: true, data: out });
  // E11 stores the write's answer in its transaction: with `meta` the envelope is the service's `{data, meta}`.
  const writeConfig = meta ? { ...write, envelope: (out: unknown) => answer(out as WithMeta<Static<TD>, Static<TM>>) } : write;

  app.get(o.path, { config: read, schema: { tags, summary: `List ${o.path.slice(1).replace(/-/g, ' ')}`, querystring: o.schemas.query, response: { 200: Page(o.schemas.item) } } }, async (req) => {
    const { rows, pagination } = await service.list(req.auth, req.query as Static<TQ>);
    return { success: true, data: rows, pagination };
  });
  app.post(o.path, { config: writeConfig, schema: { tags, summary: `Create a ${o.resource.toLowerCase()}`, body: o.schemas.create, response: { 201: written } } }, async (req, reply) => {
    const out = await service.create(req.auth, req.body as Static<TC>);
    return reply.code(201).send(answer(out)); // D3
  });
  app.get<{ Params: IdParams }>(`${o.path}/:id`, { config: read, schema: { tags, summary: `Get a ${o.resource.toLowerCase()}`, params: IdParams, response: { 200: Ok(o.schemas.detail) } } }, async (req) => {
    return { success: true, data: await service.get(req.auth, req.params.id) };
  });
  app.put<{ Params: IdParams }>(`${o.path}/:id`, { config: writeConfig, schema: { tags, summary: `Update a ${o.resource.toLowerCase()}`, params: IdParams, body: o.schemas.update, response: { 200: written } } }, async (req) => {
    return answer(await service.update(req.auth, req.params.id, req.body as Static<TU>));
  });
  app.delete<{ Params: IdParams }>(`${o.path}/:id`, { config: { ...write, envelope: deletedEnvelope }, schema: { tags, summary: `Delete a ${o.resource.toLowerCase()}`, params: IdParams, response: { 200: Deleted } } }, async (req) => {
    await service.remove(req.auth, req.params.id);
    return deletedEnvelope();
  });
}
