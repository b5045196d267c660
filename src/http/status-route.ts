import type { FastifyInstance } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { AuthContext } from './auth.ts';
import { IdParams, Ok } from '../kernel/schemas.ts';

export interface StatusRouteOptions<TB extends TSchema, TR extends TSchema> {
  /** e.g. `/quotes` */
  path: string;
  /** Singular name: `Quote` -> "Quote not found". */
  resource: string;
  /** Scope prefix; the route needs `<scope>:write`. */
  scope: string;
  /** `{status}` (required), plus what the resource takes (the quote `comment`). */
  body: TB;
  response: TR;
  handler: (auth: AuthContext, id: number, body: Static<TB>) => Promise<Static<TR>>;
}

/** SPEC "Status endpoints": `PUT /<resource>/:id/status`, answering the record. */
export function statusRoute<TB extends TSchema, TR extends TSchema>(app: FastifyInstance, o: StatusRouteOptions<TB, TR>): void {
  // The id params are typed by the route generic; the generic body is narrowed to what
  // its schema validated (Fastify's request types do not resolve over a generic schema, crud.ts).
  app.put<{ Params: Static<typeof IdParams> }>(
    `${o.path}/:id/status`,
    {
      config: { scope: `${o.scope}:write`, notFound: { id: o.resource } },
      schema: { tags: [o.resource], summary: `Set a ${o.resource.toLowerCase()}'s status`, params: IdParams, body: o.body, response: { 200: Ok(o.response) } },
    },
    async (req) => {
      return { success: true, data: await o.handler(req.auth, req.params.id, req.body as Static<TB>) };
    },
  );
}
