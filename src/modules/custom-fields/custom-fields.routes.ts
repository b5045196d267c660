import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { Page } from '../../kernel/schemas.ts';
import { CustomField, CustomFieldQuery } from './custom-fields.schemas.ts';
import { listCustomFields } from './custom-fields.service.ts';

/** D23: the workspace's custom field definitions (read-only; defined with `fieldwork custom-field add`). */
export async function customFieldsRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/custom-fields',
    {
      config: { scope: 'custom_fields:read' },
      schema: { tags: ['Custom field'], summary: 'List custom field definitions', querystring: CustomFieldQuery, response: { 200: Page(CustomField) } },
    },
    async (req) => {
      const { rows, pagination } = await listCustomFields(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );
}
