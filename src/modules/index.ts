import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../http/context.ts';
import { contactsRoutes } from './contacts/contacts.routes.ts';
import { propertiesRoutes } from './properties/properties.routes.ts';
import { usersRoutes } from './users/users.routes.ts';
import { workspaceRoutes } from './workspace/workspace.routes.ts';

/** Every resource's routes, registered under /api/v1 (one line each). */
export const modules: FastifyPluginAsync<AppContext>[] = [contactsRoutes, propertiesRoutes, usersRoutes, workspaceRoutes];
