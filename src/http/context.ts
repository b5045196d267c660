import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import type { AuthContext, KeyAuthenticator } from './auth.ts';
import type { SessionAuthenticator } from './sessions.ts';
import type { ValidationStyle } from './error-handler.ts';

/** What every module's routes and services are given. */
export interface AppContext {
  db: Kysely<DB>;
  dialect: Dialect;
  config: Config;
  /** The one key authenticator (and its cache) of this app. */
  authenticator: KeyAuthenticator;
  /** The one session authenticator (A1): the cookie's second way to an AuthContext. */
  sessions: SessionAuthenticator;
}

export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
}

/** A route's scope: one, any one of several, or checked by the service (`null`). */
export type RouteScope = string | readonly string[] | null;

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
  interface FastifyContextConfig {
    /**
     * The scope the route requires; a list when any one of them will do (E13's feed,
     * which then shows what each allows); `null` when the service checks it (uploads, comments).
     */
    scope?: RouteScope;
    /** With `scope: null`: the prefixes of the scopes the service may ask for (`<prefix>:read` or `:write`), for E16's `x-scopes`. */
    parentScopes?: readonly string[];
    /** Routes outside key authentication (the OpenAPI document, file URLs). */
    public?: boolean;
    /** Routes outside the rate limit (the OpenAPI document). */
    unlimited?: boolean;
    /** D4: the wording of a failed validation. */
    validation?: ValidationStyle;
    /** E16: error statuses the route answers that its shape does not tell (a key checked in the body, A1's /api/auth routes). */
    errors?: readonly number[];
    /** D5: path parameter -> the resource named when it is not an id. */
    notFound?: Record<string, string>;
    /** E11: the status of the route's success, when not 201 for POST and 200 otherwise. */
    successStatus?: number;
    /** E11: the route's answer around its effect's result, when not `{success: true, data}`. */
    envelope?: (result: unknown) => Record<string, unknown>;
  }
  interface FastifyRequest {
    auth: AuthContext;
    /** The JSON body as received: E11 compares a repeated request's body by its hash. */
    rawBody?: string;
  }
}
