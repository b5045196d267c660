import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { Ok } from '../../kernel/schemas.ts';
import { Automations, AutomationsBody } from './automations.schemas.ts';
import { getAutomations, updateAutomations } from './automations.service.ts';

const ROLES_NOTE = "Owners' and admins' sessions; other roles' sessions get 403.";

/** E24: the workspace's automatic reminders. */
export async function automationsRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/workspace/automations',
    {
      config: { scope: 'workspace:read' },
      schema: { operationId: 'getWorkspaceAutomations', tags: ['Workspace'], summary: 'The automatic reminders: quote follow-ups, invoice reminders, visit reminders', description: ROLES_NOTE, response: { 200: Ok(Automations) } },
    },
    async (req) => ({ success: true as const, data: await getAutomations(db, req.auth) }),
  );
  app.put(
    '/workspace/automations',
    {
      config: { scope: 'workspace:write' },
      schema: {
        tags: ['Workspace'],
        summary: 'Change the automatic reminders',
        description: `${ROLES_NOTE} A field left out keeps its value; out-of-range, repeated or too many days are 400 with the field and item named, and nothing changes.`,
        body: AutomationsBody,
        response: { 200: Ok(Automations) },
      },
    },
    async (req) => ({ success: true as const, data: await updateAutomations(db, req.auth, req.body) }),
  );
}
