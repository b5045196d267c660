import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { Page } from '../../kernel/schemas.ts';
import { Deletion, DeletionQuery } from './deletions.schemas.ts';
import { DELETION_READ_SCOPES, deletionsFeed } from './deletions.service.ts';

export async function deletionsRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/deletions',
    {
      // Any one read scope lets the key in; the feed then shows only what its scopes read (E13).
      config: { scope: DELETION_READ_SCOPES },
      schema: {
        tags: ['Deletion'],
        operationId: 'listDeletions',
        summary: 'List deleted records (sync feed)',
        description:
          'Deleted contacts, properties, requests, quotes, jobs, invoices, events, time entries, services, tax rates, quote templates and uploads, oldest first, kept 90 days. Only the resources whose `<x>:read` scope the key has (`read`: all) are listed; an upload is read with its parent\'s scope.',
        querystring: DeletionQuery,
        response: { 200: Page(Deletion) },
      },
    },
    async (req) => {
      const { rows, pagination } = await deletionsFeed(db, req.auth, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );
}
