import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import type { AuthContext } from './auth.ts';
import type { ValidationStyle } from './errors.ts';

/** What every module's routes and services are given. */
export interface AppContext {
  db: Kysely<DB>;
  dialect: Dialect;
  config: Config;
}

export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
  interface FastifyContextConfig {
    /** The scope the route requires; `null` when the service checks it (uploads, comments). */
    scope?: string | null;
    /** Routes outside key authentication (the OpenAPI document). */
    public?: boolean;
    /** D4: the wording of a failed validation. */
    validation?: ValidationStyle;
    /** D5: path parameter -> the resource named when it is not an id. */
    notFound?: Record<string, string>;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}
