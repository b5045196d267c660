import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listQuery } from '../../db/list-query.ts';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { ROLES } from '../../http/roles.ts';
import { Money } from '../../domain/line-items.ts';
import { Deleted, Email, IdParams, Nullable, Ok, Page, Str, Timestamp, Uuid } from '../../kernel/schemas.ts';
import { User } from '../users/users.routes.ts';
import { INVITE_SORT } from './team.repo.ts';
import { teamService } from './team.service.ts';

const Invite = Type.Object({
  id: Type.Integer(),
  user_id: Uuid,
  email: Type.String(),
  role: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  created_at: Timestamp,
  last_sent_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  /** F333: the latest invite email in the message log: `queued`, `sent`, `not_sent` (no SMTP_URL) or `failed` (e.g. the address refused). */
  email_status: Nullable(Type.String({ description: "The latest invite email's status in the message log: `queued`, `sent`, `not_sent` or `failed`" })),
  email_error: Nullable(Type.String({ description: 'Why it was not sent, when it was not' })),
});
const InviteBody = Type.Object({
  email: Email,
  role: Type.Enum([...ROLES]),
  first_name: Type.Optional(Str(100)),
  last_name: Type.Optional(Str(100)),
});
const InviteQuery = listQuery(INVITE_SORT, {});
const UserParams = Type.Object({ user_id: Uuid });
const UserUpdate = Type.Object({
  role: Type.Optional(Type.Enum([...ROLES])),
  first_name: Type.Optional(Nullable(Str(100))),
  last_name: Type.Optional(Nullable(Str(100))),
  job_title: Type.Optional(Nullable(Str(100))),
  /** E26: money per hour (2 decimals at most); null clears it. */
  cost_rate: Type.Optional(Nullable(Money)),
});

/**
 * A5 "Team": invites (a member, a setup link, its email through the outbox),
 * role and name changes, removal. `team:manage` is a session-only scope: owners'
 * and admins' sessions hold it, an API key never does (403).
 */
export async function teamRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = teamService(ctx);
  const tags = ['Team'];
  const config = { scope: 'team:manage', notFound: { id: 'Invite', user_id: 'User' } };

  app.get('/team/invites', { config, schema: { tags, summary: 'List pending invites', querystring: InviteQuery, response: { 200: Page(Invite) } } }, async (req) => {
    const { rows, pagination } = await service.list(req.auth, req.query);
    return { success: true as const, data: rows, pagination };
  });
  app.post('/team/invites', { config, schema: { tags, summary: 'Invite a person by email and role (a setup link valid 7 days)', body: InviteBody, response: { 201: Ok(Invite) } } }, async (req, reply) => {
    return reply.code(201).send({ success: true as const, data: await service.invite(req.auth, req.body) }); // D3
  });
  app.post(
    '/team/invites/:id/resend',
    { config: { ...config, successStatus: 200 }, schema: { tags, summary: 'Email a pending invite again, with a fresh link', params: IdParams, response: { 200: Ok(Invite) } } },
    async (req) => ({ success: true as const, data: await service.resend(req.auth, req.params.id) }),
  );
  app.post(
    '/team/invites/:id/setup-link',
    {
      config: { ...config, successStatus: 200 },
      schema: {
        tags,
        summary: 'A fresh setup link for a pending invite, to hand over when its email did not go out',
        description: 'Valid 7 days and once, like the emailed one; earlier links keep working until they expire. Nothing is emailed.',
        params: IdParams,
        response: { 200: Ok(Type.Object({ url: Type.String({ format: 'uri' }), expires_at: Timestamp })) },
      },
    },
    async (req) => ({ success: true as const, data: await service.setupLink(req.auth, req.params.id) }),
  );
  app.delete(
    '/team/invites/:id',
    { config: { ...config, envelope: deletedEnvelope }, schema: { tags, summary: 'Cancel a pending invite', params: IdParams, response: { 200: Deleted } } },
    async (req) => {
      await service.cancel(req.auth, req.params.id);
      return deletedEnvelope();
    },
  );
  app.put(
    '/users/:user_id',
    { config, schema: { tags, summary: "Change a member's role, names, job title or cost per hour", params: UserParams, body: UserUpdate, response: { 200: Ok(User) } } },
    async (req) => ({ success: true as const, data: await service.update(req.auth, req.params.user_id, req.body) }),
  );
  app.delete(
    '/users/:user_id',
    {
      config: { ...config, envelope: deletedEnvelope },
      schema: { tags, summary: 'Remove a member: their sessions end and their keys are revoked', params: UserParams, response: { 200: Deleted } },
    },
    async (req) => {
      await service.remove(req.auth, req.params.user_id);
      return deletedEnvelope();
    },
  );
}
