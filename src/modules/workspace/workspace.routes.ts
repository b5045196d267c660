import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { notFound } from '../../kernel/errors.ts';
import { Id, Nullable, Ok } from '../../kernel/schemas.ts';
import { multipartOnly, readForm, registerMultipart } from '../uploads/uploads.routes.ts';
import { LOGO_MAX_BYTES, logoService, logoUrl } from './logo.ts';
import { findWorkspace, settingsOf, setWorkspace, type WorkspaceRow, workspaceView } from './workspace.service.ts';
import { filesFor } from '../uploads/files.ts';

const NullableString = Nullable(Type.String());
export const Workspace = Type.Object({
  id: Id,
  name: Type.String(),
  slug: Type.String(),
  industry: NullableString,
  industry_key: NullableString,
  country: NullableString,
  currency: NullableString,
  timezone: NullableString,
  about: NullableString,
});

/** GET and PUT /workspace: SPEC Workspace (what /me shows too) and issue 22's additive fields. */
export const WorkspaceDetail = Type.Object({
  ...Workspace.properties,
  // A64: additive fields, how customers reach the business (shown on PDFs, hub pages, emails).
  address: NullableString,
  phone: NullableString,
  email: NullableString,
  website: NullableString,
  tax_number: NullableString,
  // A63: the settings `fieldwork workspace set` names beside the columns.
  reply_to: NullableString,
  week_start: Type.Enum(['monday', 'sunday']),
  // A125: the logo's stable public URL (PNG or JPEG), or null.
  logo_url: NullableString,
});

/** PUT /workspace/logo: the OpenAPI document's view of the form (the handler reads the stream). */
const LogoForm = Type.Object({ file: Type.String({ format: 'binary', description: 'A PNG or JPEG image, at most 1 MB (the type is told by the bytes)' }) });

const Optional = (max: number) => Type.Optional(Nullable(Type.String({ maxLength: max })));
/** The fields of `fieldwork workspace set` (A63); null or "" clears a nullable one. Checked by its service. */
const WorkspaceUpdate = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  country: Optional(2),
  currency: Optional(3),
  timezone: Optional(64),
  industry: Optional(255),
  about: Optional(10_000),
  reply_to: Optional(254),
  week_start: Type.Optional(Type.Enum(['monday', 'sunday'])),
  address: Optional(1000),
  phone: Optional(255),
  email: Optional(254),
  website: Optional(2048),
  tax_number: Optional(255),
});

function apiView(w: WorkspaceRow, publicUrl: string) {
  const settings = settingsOf(w);
  return {
    ...workspaceView(w),
    reply_to: typeof settings.reply_to === 'string' ? settings.reply_to : null,
    week_start: settings.week_start === 'sunday' ? ('sunday' as const) : ('monday' as const),
    logo_url: logoUrl(publicUrl, w),
  };
}

export async function workspaceRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const view = (w: WorkspaceRow) => apiView(w, ctx.config.publicUrl);
  app.get(
    '/workspace',
    { config: { scope: 'workspace:read' }, schema: { tags: ['Workspace'], summary: "The key's workspace", response: { 200: Ok(WorkspaceDetail) } } },
    async (req) => {
      const w = await findWorkspace(db, req.auth.workspaceId);
      if (!w) throw notFound('Workspace');
      return { success: true as const, data: view(w) };
    },
  );
  app.put(
    '/workspace',
    {
      config: { scope: 'workspace:write' },
      schema: { tags: ['Workspace'], summary: "Change the workspace's details and company settings", body: WorkspaceUpdate, response: { 200: Ok(WorkspaceDetail) } },
    },
    async (req) => {
      // The same service as `fieldwork workspace set`: its pairs, its checks (currency, country, time zone, reply_to).
      const pairs = Object.fromEntries(Object.entries(req.body).map(([k, v]) => [k, v ?? '']));
      const data = await transact(db, req.auth, async (trx) => view((await setWorkspace(trx, req.auth.workspaceId, pairs)).workspace));
      return { success: true as const, data };
    },
  );

  // A125: the logo. Multipart, parsed in this plugin only.
  await registerMultipart(app, LOGO_MAX_BYTES);
  const { storage } = filesFor(ctx);
  const logos = logoService(ctx);
  app.put(
    '/workspace/logo',
    {
      config: { scope: 'workspace:write' },
      preParsing: multipartOnly,
      // The body is a stream read by the handler; the schema is there for the OpenAPI document.
      validatorCompiler: () => () => true,
      schema: {
        tags: ['Workspace'],
        summary: "Set the workspace's logo (on PDFs, hub pages and customer emails)",
        description: 'Scope: `workspace:write`. A PNG or JPEG in the form field `file`, at most 1 MB; the type is told by the bytes (no SVG).',
        consumes: ['multipart/form-data'],
        body: LogoForm,
        response: { 200: Ok(WorkspaceDetail) },
      },
    },
    async (req) => {
      const incoming = await readForm(req, storage, LOGO_MAX_BYTES);
      try {
        return { success: true as const, data: await logos.set(req.auth, incoming.file, view) };
      } finally {
        if (incoming.file) await storage.discard(incoming.file.staged);
      }
    },
  );
  app.delete(
    '/workspace/logo',
    {
      config: { scope: 'workspace:write' },
      schema: { tags: ['Workspace'], summary: "Remove the workspace's logo", description: 'Scope: `workspace:write`. Without a logo, a no-op.', response: { 200: Ok(WorkspaceDetail) } },
    },
    async (req) => ({ success: true as const, data: await logos.remove(req.auth, view) }),
  );
}
