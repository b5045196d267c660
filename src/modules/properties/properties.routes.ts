import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { deletedEnvelope } from '../../http/crud.ts';
import { Deleted, IdParams, Ok, Page } from '../../kernel/schemas.ts';
import {
  ContactProperty,
  ContactPropertyParams,
  ContactPropertyQuery,
  Property,
  PropertyCreate,
  PropertyQuery,
  PropertyUpdate,
} from './properties.schemas.ts';
import { propertiesService } from './properties.service.ts';

/** SPEC "Contact properties": the workspace list and the contact-scoped link routes. */
export async function propertiesRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = propertiesService(ctx);
  const tags = ['Property'];
  // D4: 422 Validation failed; D5/D32: a non-integer path id answers the matching "not found".
  const common = { validation: 'contacts', notFound: { id: 'Contact', propertyId: 'Property' } } as const;
  const read = { ...common, scope: 'properties:read' };
  const write = { ...common, scope: 'properties:write' };

  app.get(
    '/properties',
    { config: read, schema: { tags, summary: 'List properties with their contact ids', querystring: PropertyQuery, response: { 200: Page(Property) } } },
    async (req) => {
      const { rows, pagination } = await service.list(req.auth, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  app.get(
    '/contacts/:id/properties',
    {
      config: read,
      schema: { tags, summary: "List a contact's properties", params: IdParams, querystring: ContactPropertyQuery, response: { 200: Page(ContactProperty) } },
    },
    async (req) => {
      const { rows, pagination } = await service.listForContact(req.auth, req.params.id, req.query);
      return { success: true as const, data: rows, pagination };
    },
  );

  app.post(
    '/contacts/:id/properties',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a property for a contact, or link an existing one (property_id)',
        params: IdParams,
        body: PropertyCreate,
        response: { 201: Ok(ContactProperty) },
      },
    },
    async (req, reply) => {
      const data = await service.create(req.auth, req.params.id, req.body);
      return reply.code(201).send({ success: true as const, data });
    },
  );

  app.get(
    '/contacts/:id/properties/:propertyId',
    { config: read, schema: { tags, summary: "A contact's property, with that link's role and its access notes", params: ContactPropertyParams, response: { 200: Ok(ContactProperty) } } },
    async (req) => ({ success: true as const, data: await service.get(req.auth, req.params.id, req.params.propertyId) }),
  );

  app.put(
    '/contacts/:id/properties/:propertyId',
    {
      config: write,
      schema: { tags, summary: "Update a contact's property and its link role", params: ContactPropertyParams, body: PropertyUpdate, response: { 200: Ok(ContactProperty) } },
    },
    async (req) => ({ success: true as const, data: await service.update(req.auth, req.params.id, req.params.propertyId, req.body) }),
  );

  app.delete(
    '/contacts/:id/properties/:propertyId',
    { config: { ...write, envelope: deletedEnvelope }, schema: { tags, summary: 'Unlink a property from a contact (the property stays)', params: ContactPropertyParams, response: { 200: Deleted } } },
    async (req) => {
      await service.unlink(req.auth, req.params.id, req.params.propertyId);
      return deletedEnvelope();
    },
  );
}
