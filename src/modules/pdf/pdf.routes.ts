import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../http/context.ts';
import { IdParams } from '../../kernel/schemas.ts';
import { filesFor } from '../uploads/files.ts';
import { invoicePdf, type PdfFile, quotePdf } from './pdf.service.ts';

// E9: GET /quotes/:id/pdf and /invoices/:id/pdf, the document as an attachment.

/** The OpenAPI response: a binary PDF, not JSON. */
const PdfResponse = {
  description: 'The document as a PDF (`Content-Disposition: attachment`)',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** A PDF as a download (the API's routes and the customer hub's). */
export const sendPdf = (reply: FastifyReply, file: PdfFile) =>
  reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .send(file.pdf);

export async function pdfRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;
  const { storage } = filesFor(ctx);
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/quotes/:id/pdf',
    {
      config: { scope: 'quotes:read', notFound: { id: 'Quote' } },
      schema: { operationId: 'getQuotePdf', tags: ['Quote'], summary: 'Download a quote as a PDF', params: IdParams, response: { 200: PdfResponse } },
    },
    async (req, reply) => sendPdf(reply, await quotePdf(db, req.auth.workspaceId, req.params.id, storage)),
  );
  app.get(
    '/invoices/:id/pdf',
    {
      config: { scope: 'invoices:read', notFound: { id: 'Invoice' } },
      schema: { operationId: 'getInvoicePdf', tags: ['Invoice'], summary: 'Download an invoice as a PDF', params: IdParams, response: { 200: PdfResponse } },
    },
    async (req, reply) => sendPdf(reply, await invoicePdf(db, req.auth.workspaceId, req.params.id, storage)),
  );
}
