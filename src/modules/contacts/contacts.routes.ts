import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { crudRoutes } from '../../http/crud.ts';
import { Contact, ContactCreate, ContactDetail, ContactQuery, ContactUpdate } from './contacts.schemas.ts';
import { contactsService } from './contacts.service.ts';

export async function contactsRoutes(app: FastifyInstance, ctx: AppContext) {
  crudRoutes(app, {
    path: '/contacts',
    resource: 'Contact',
    scope: 'contacts',
    validation: 'contacts', // D4: 422 Validation failed
    schemas: { query: ContactQuery, create: ContactCreate, update: ContactUpdate, item: Contact, detail: ContactDetail },
    service: contactsService(ctx),
  });
}
