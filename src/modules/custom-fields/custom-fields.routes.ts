import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { transact } from '../../http/transact.ts';
import { Deleted, IdParams, Ok, Page } from '../../kernel/schemas.ts';
import { CustomField, CustomFieldCreate, CustomFieldQuery, CustomFieldUpdate } from './custom-fields.schemas.ts';
import { addCustomField, listCustomFields, removeCustomField, updateCustomField } from './custom-fields.service.ts';

/** D23: the workspace's custom field definitions; A65: written here too, as by `fieldwork custom-field add`. */
export async function customFieldsRoutes(fastify: FastifyInstance, { db }: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Custom field'];
  const write = { scope: 'custom_fields:write', notFound: { id: 'Custom field' } };
  app.get(
    '/custom-fields',
    {
      config: { scope: 'custom_fields:read' },
      schema: { tags, summary: 'List custom field definitions', querystring: CustomFieldQuery, response: { 200: Page(CustomField) } },
    },
    async (req) => {
      const { rows, pagination } = await listCustomFields(db, req.auth.workspaceId, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );
  app.post('/custom-fields', { config: write, schema: { tags, summary: 'Define a custom field', body: CustomFieldCreate, response: { 201: Ok(CustomField) } } }, async (req, reply) => {
    const b = req.body;
    const data = await transact(db, req.auth, (trx) =>
      addCustomField(trx, req.auth.workspaceId, { module_type: b.module_type, key: b.key, label: b.label, type: b.type, options: b.options ?? null, required: b.required ?? false }),
    );
    return reply.code(201).send({ success: true as const, data }); // D3
  });
  app.put(
    '/custom-fields/:id',
    { config: write, schema: { tags, summary: "Change a custom field's label, options or required", params: IdParams, body: CustomFieldUpdate, response: { 200: Ok(CustomField) } } },
    async (req) => ({ success: true as const, data: await transact(db, req.auth, (trx) => updateCustomField(trx, req.auth.workspaceId, req.params.id, req.body)) }),
  );
  app.delete(
    '/custom-fields/:id',
    { config: { ...write, envelope: deletedEnvelope }, schema: { tags, summary: 'Delete a custom field definition (records keep their values)', params: IdParams, response: { 200: Deleted } } },
    async (req) => {
      await transact(db, req.auth, (trx) => removeCustomField(trx, req.auth.workspaceId, req.params.id));
      return deletedEnvelope();
    },
  );
}
