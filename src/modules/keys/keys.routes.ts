import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { transact } from '../../http/transact.ts';
import { invalidField, notFound } from '../../kernel/errors.ts';
import { Deleted, IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { ApiKey, CreatedApiKey, CreateKeyBody, KeyQuery } from './keys.schemas.ts';
import { createKey, getKey, listKeysPage, revokeKey } from './keys.service.ts';

/**
 * A5 "API keys": the same operations as `fieldwork key create|list|revoke`, through
 * the same service. `keys:manage` is a session-only scope (src/http/auth.ts): owners'
 * and admins' sessions hold it, no key can, so a key gets 403 (A1).
 */
export async function keysRoutes(fastify: FastifyInstance, { db, authenticator }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['API key'];
  const config = { scope: 'keys:manage', notFound: { id: 'API key' } };

  app.get('/keys', { config, schema: { tags, summary: "List the workspace's API keys (never their tokens)", querystring: KeyQuery, response: { 200: Page(ApiKey) } } }, async (req) => {
    const { rows, pagination } = await listKeysPage(db, req.auth.workspaceId, req.query);
    return { success: true as const, data: rows, pagination };
  });

  app.post('/keys', { config, schema: { tags, summary: 'Create an API key; its token is in this answer only', body: CreateKeyBody, response: { 201: Ok(CreatedApiKey) } } }, async (req, reply) => {
    const body = req.body;
    if (body.type === 'rest' && !body.scopes) throw invalidField(['scopes'], 'is required for a rest key');
    let token = '';
    // A62: what an Idempotency-Key stores (and replays) is the key without its token:
    // only the token's hash is kept anywhere, so the token is shown once.
    const key = await transact(db, req.auth, async (trx) => {
      const created = await createKey(trx, { workspaceId: req.auth.workspaceId, type: body.type, scopes: body.scopes, name: body.name, userId: body.user_id ?? req.auth.userId });
      token = created.token;
      return { ...(await getKey(trx, req.auth.workspaceId, created.id)), token: null };
    });
    return reply.code(201).send({ success: true as const, data: { ...key, token } }); // D3
  });

  app.delete(
    '/keys/:id',
    { config: { ...config, envelope: deletedEnvelope }, schema: { tags, summary: 'Revoke an API key (it answers 401 from then on)', params: IdParams, response: { 200: Deleted } } },
    async (req) => {
      const revoked = await transact(db, req.auth, async (trx) => {
        const row = await revokeKey(trx, req.params.id, req.auth.workspaceId);
        if (!row) throw notFound('API key');
        return row;
      });
      // This process stops accepting it now; others within a second (SQLite) or on the change notice (PostgreSQL).
      authenticator.forget(revoked.token_hash);
      return deletedEnvelope();
    },
  );
}
