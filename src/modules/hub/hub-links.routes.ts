import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { deletedEnvelope } from '../../http/crud.ts';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { Deleted, IdParams, Ok, Timestamp } from '../../kernel/schemas.ts';
import { createHubLink, revokeHubLinks } from './hub.service.ts';

export const HubLinkResponse = Type.Object({
  url: Type.String({ description: 'PUBLIC_URL/hub/<token>: the customer hub of this contact' }),
  expires_at: Timestamp,
});

/** E7: the office's side of the customer hub: a new link for a contact, and revoking them all. */
export async function hubLinksRoutes(fastify: FastifyInstance, { db, config }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/contacts/:id/hub-link',
    {
      config: { scope: 'contacts:write', notFound: { id: 'Contact' } },
      schema: {
        operationId: 'createHubLink',
        tags: ['Contact'],
        summary: "Create a link to the contact's customer hub",
        params: IdParams,
        response: { 201: Ok(HubLinkResponse) },
      },
    },
    async (req, reply) => {
      const data = await transact(db, req.auth, (trx) => createHubLink(trx, req.auth.workspaceId, req.params.id, config));
      return reply.code(201).send({ success: true as const, data });
    },
  );
  app.delete(
    '/contacts/:id/hub-links',
    {
      config: { scope: 'contacts:write', notFound: { id: 'Contact' }, envelope: deletedEnvelope },
      schema: { operationId: 'revokeHubLinks', tags: ['Contact'], summary: "Revoke every link to the contact's customer hub", params: IdParams, response: { 200: Deleted } },
    },
    async (req) => {
      await transact(db, req.auth, (trx) => revokeHubLinks(trx, req.auth.workspaceId, req.params.id));
      return deletedEnvelope();
    },
  );
}
