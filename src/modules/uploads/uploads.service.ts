import { Ajv } from 'ajv';
import { transact } from '../../http/transact.ts';
import { isUniqueViolation } from '../../db/database.ts';
import { now, toJson } from '../../db/json.ts';
import { type AuthContext, requireScope } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { ajvDetails, type Detail, notFound, ValidationError } from '../../kernel/errors.ts';
import type { PageResult } from '../../db/list-query.ts';
import { filesFor } from './files.ts';
import { newKey, PRIVATE_BUCKET, PUBLIC_BUCKET, type Staged } from '../../storage/storage.ts';
import { type CheckedFile, checkFile, checkFileName, MAX_FILE_BYTES } from './file-check.ts';
import { attachScope, isModuleType, type ModuleType, parentScope, requireParent } from './parents.ts';
import { deleteLink, findFileByContent, findLink, insertLink, insertStoredFile, type LinkRow, listLinks, lockFiles, releaseFiles, updateLink } from './uploads.repo.ts';
import { UploadFields, type UploadLink, type UploadQuery, type UploadUpdate } from './uploads.schemas.ts';

/** What the multipart reader hands over: the text parts and the staged file. */
export interface IncomingUpload {
  fields: Record<string, string>;
  file: IncomingFile | null;
}

export interface IncomingFile {
  staged: Staged;
  fileName: string | undefined;
  declaredType: string | undefined;
  tooLarge: boolean;
}

// Multipart values are text: coerce "12" and "true" like a query string.
const fieldsAjv = new Ajv({ allErrors: true, strict: false, coerceTypes: true, removeAdditional: true, useDefaults: true });
const validateFields = fieldsAjv.compile<UploadFields>(UploadFields);

/** D4: uploads word their validation errors `Validation error` (the route's config says so). */
const invalid = (details: Detail[]) => new ValidationError(details);

export function uploadsService(ctx: AppContext) {
  const { db } = ctx;
  const { storage, sweeper } = filesFor(ctx);

  async function view(row: LinkRow): Promise<UploadLink> {
    const bucket = row.bucket === PUBLIC_BUCKET ? PUBLIC_BUCKET : PRIVATE_BUCKET;
    return {
      link_id: row.link_id,
      module_type: row.module_type,
      module_id: row.module_id,
      name: row.name,
      description: row.description,
      category: row.category,
      bucket: row.bucket,
      path: row.path,
      original_file_name: row.original_file_name,
      url: await storage.url(bucket, row.path), // fresh on every read (SPEC Upload link)
      owner_id: row.owner_id,
      meta: row.meta,
      mime_type: row.mime_type,
      size: Number(row.size),
      link_created_at: row.link_created_at,
      link_modified_at: row.link_modified_at,
    };
  }

  async function linkOrThrow(auth: AuthContext, id: number, access: 'read' | 'write'): Promise<LinkRow> {
    const link = await findLink(db, auth.workspaceId, id);
    if (!link || !isModuleType(link.module_type)) throw notFound('Upload');
    requireScope(auth, parentScope(link.module_type, access), 'module'); // SPEC Uploads 4: the parent's scope
    return link;
  }

  /** Links the staged bytes to the parent, reusing a stored file with the same content. */
  async function store(auth: AuthContext, fields: UploadFields, file: IncomingFile, fileName: string, checked: CheckedFile): Promise<UploadLink> {
    const workspaceId = auth.workspaceId;
    const bucket = fields.is_public ? PUBLIC_BUCKET : PRIVATE_BUCKET; // SPEC Uploads 1
    await storage.ready(); // the answer's URL is signed in the transaction that stores it (E11)
    for (let attempt = 1; ; attempt++) {
      const placed: { key: string | null } = { key: null };
      try {
        return await transact(db, auth, async (trx) => {
          const at = now();
          let fileId = (await findFileByContent(trx, workspaceId, bucket, file.staged.sha256))?.id;
          if (fileId === undefined) {
            const key = newKey(workspaceId, checked.ext);
            fileId = await insertStoredFile(trx, {
                workspace_id: workspaceId,
                bucket,
                path: key,
                sha256: file.staged.sha256,
                size: file.staged.size,
                mime_type: checked.mime,
                original_file_name: fileName,
                meta: toJson(checked.meta),
                created_at: at,
            });
            // Last, so a failed insert never leaves bytes behind.
            await storage.put(file.staged, bucket, key);
            placed.key = key;
          }
          const linkId = await insertLink(trx, {
              workspace_id: workspaceId,
              file_id: fileId,
              module_type: fields.module_type,
              module_id: fields.module_id,
              name: fields.name ?? fileName, // SPEC: default, the original file name
              description: fields.description ?? null,
              category: fields.category ?? 'attachment',
              original_file_name: fileName,
              owner_id: auth.userId,
              created_at: at,
              updated_at: at,
          });
          return view((await findLink(trx, workspaceId, linkId))!); // the answer, stored with the link (E11)
        });
      } catch (err) {
        if (placed.key) await storage.remove(bucket, placed.key);
        // The same bytes stored by a concurrent upload a moment ago: link to that file instead.
        if (attempt === 1 && !placed.key && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  return {
    async create(auth: AuthContext, incoming: IncomingUpload): Promise<UploadLink> {
      // Empty text parts are absent ones (an HTML form sends blank inputs as "").
      const raw: Record<string, unknown> = Object.fromEntries(Object.entries(incoming.fields).filter(([, v]) => v !== ''));
      const valid = validateFields(raw);
      const details = valid ? [] : ajvDetails(validateFields.errors ?? []);
      // The scope depends on module_type, so that one is checked before anything else (SPEC Uploads 4).
      const type = raw.module_type;
      if (typeof type !== 'string' || !isModuleType(type)) throw invalid(details);
      requireScope(auth, attachScope(auth, type), 'module');
      if (!incoming.file) details.push({ path: ['file'], message: 'is required' });
      if (details.length) throw invalid(details);
      const fields = raw as UploadFields;
      const file = incoming.file!;
      if (file.tooLarge) throw invalid([{ path: ['file'], message: `file must be at most ${MAX_FILE_BYTES / (1024 * 1024)} MB` }]);
      const fileName = checkFileName(file.fileName);
      await requireParent(db, auth.workspaceId, type, fields.module_id); // D32
      const checked = await checkFile(file.staged.file, file.staged.size, fileName, file.declaredType);
      return store(auth, fields, file, fileName, checked);
    },

    async list(auth: AuthContext, query: UploadQuery): Promise<PageResult<UploadLink>> {
      const type = query.module_type as ModuleType;
      requireScope(auth, parentScope(type, 'read'), 'module');
      await requireParent(db, auth.workspaceId, type, query.module_id);
      const page = await listLinks(db, auth.workspaceId, query);
      return { rows: await Promise.all(page.rows.map(view)), pagination: page.pagination };
    },

    async get(auth: AuthContext, id: number): Promise<UploadLink> {
      return view(await linkOrThrow(auth, id, 'read'));
    },

    async update(auth: AuthContext, id: number, body: UploadUpdate): Promise<UploadLink> {
      if (body.name === undefined && body.description === undefined && body.category === undefined) {
        throw invalid([{ path: [], message: 'at least one of name, description, category is required' }]);
      }
      await linkOrThrow(auth, id, 'write');
      await storage.ready(); // the answer's URL is signed in the transaction that stores it (E11)
      const changes: { name?: string; description?: string | null; category?: string; updated_at: string } = { updated_at: now() };
      if (body.name !== undefined) changes.name = body.name;
      if (body.description !== undefined) changes.description = body.description;
      if (body.category !== undefined) changes.category = body.category;
      return transact(db, auth, async (trx) => {
        if (!(await updateLink(trx, auth.workspaceId, id, changes))) throw notFound('Upload'); // deleted meanwhile
        return view((await findLink(trx, auth.workspaceId, id))!);
      });
    },

    async remove(auth: AuthContext, id: number): Promise<void> {
      const link = await linkOrThrow(auth, id, 'write');
      await transact(db, auth, async (trx) => {
        await lockFiles(trx, auth.workspaceId, [link.file_id]);
        if (!(await deleteLink(trx, auth.workspaceId, id))) throw notFound('Upload'); // a concurrent delete won
        await releaseFiles(trx, auth.workspaceId, [link.file_id]);
      });
      await sweeper.run(); // committed: the released bytes can go now
    },
  };
}
