import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { notFound } from '../../kernel/errors.ts';
import { Deleted, Ok } from '../../kernel/schemas.ts';
import { calendarFeed, createCalendarFeed, revokeCalendarFeed } from './calendar-feeds.service.ts';

const SESSION_NOTE = "A person's session (any role); an API key gets 403.";

/** E25: the session's calendar feed URL, under /api/v1. */
export async function calendarFeedRoutes(fastify: FastifyInstance, { db, config }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/me/calendar-feed',
    {
      // The session's own feed: no scope; the service refuses keys.
      config: { scope: null },
      schema: {
        operationId: 'createCalendarFeed',
        tags: ['Auth'],
        summary: 'A new calendar feed URL of my visits (replaces the previous one)',
        description: `${SESSION_NOTE} The URL (\`PUBLIC_URL/calendar/<token>.ics\`) is shown once; only its hash is kept.`,
        security: [{ session: [] }],
        response: { 201: Ok(Type.Object({ url: Type.String({ format: 'uri' }) })) },
      },
    },
    async (req, reply) => {
      const data = await createCalendarFeed(db, req.auth, config.publicUrl);
      return reply.code(201).send({ success: true as const, data });
    },
  );
  app.delete(
    '/me/calendar-feed',
    {
      config: { scope: null },
      schema: {
        operationId: 'revokeCalendarFeed',
        tags: ['Auth'],
        summary: 'Revoke my calendar feed URL',
        description: `${SESSION_NOTE} The URL answers 404 from then on; 404 when there is none.`,
        security: [{ session: [] }],
        response: { 200: Deleted },
      },
    },
    async (req) => ({ success: true as const, data: await revokeCalendarFeed(db, req.auth) }),
  );
}

/** E25: the feed itself, outside /api/v1: the token in the URL is its only credential (as the public file URLs). */
export async function calendarPublicRoutes(fastify: FastifyInstance, { db, config }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/calendar/:feed',
    {
      config: { public: true },
      schema: {
        operationId: 'getCalendarFeed',
        tags: ['Auth'],
        summary: "A person's visits as an iCalendar feed (RFC 5545; no other authentication)",
        description: 'From 30 days ago to 180 days ahead. 404 for an unknown or revoked token, or a removed member.',
        security: [],
        params: Type.Object({ feed: Type.String({ maxLength: 100, description: '`<token>.ics`' }) }),
        produces: ['text/calendar'],
        response: { 200: Type.String({ description: 'text/calendar' }) },
      },
    },
    async (req, reply) => {
      const body = await calendarFeed(db, req.params.feed, config.publicUrl);
      if (body === null) throw notFound('Calendar feed');
      return reply
        .type('text/calendar; charset=utf-8')
        .header('cache-control', 'private, no-cache')
        .header('content-disposition', 'inline; filename="visits.ics"')
        .send(body);
    },
  );
}
