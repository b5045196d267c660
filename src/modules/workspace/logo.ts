import fsp from 'node:fs/promises';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { transact } from '../../http/transact.ts';
import { now } from '../../db/json.ts';
import { ValidationError } from '../../kernel/errors.ts';
import { newKey, PUBLIC_BUCKET, type Storage } from '../../storage/storage.ts';
import { queueDeletion } from '../../storage/sweeper.ts';
import { filesFor } from '../uploads/files.ts';
import { imageSize } from '../uploads/image-size.ts';
import type { IncomingFile } from '../uploads/uploads.service.ts';
import { findWorkspace, updateWorkspace, type WorkspaceRow } from './workspace.repo.ts';

// A125: the workspace's logo, on its quote and invoice PDFs, its hub pages and its
// HTML customer emails. PNG or JPEG only, told by the bytes (never SVG: it can
// carry scripts), at most 1 MB. The bytes go to the public bucket under a new
// server-chosen key on every change, so the public URL of a logo never changes
// content (caches keep it a day); the old bytes are queued for the sweeper.

export const LOGO_MAX_BYTES = 1024 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg' };

const refuse = (message: string): never => {
  throw new ValidationError([{ path: ['file'], message }]);
};

/** The logo's path on this server (/files/public/<key>), or null: the hub page uses it as it is (same origin). */
export const logoPath = (w: { logo_key: string | null }) => (w.logo_key ? `/files/public/${w.logo_key}` : null);

/** The logo's absolute URL under PUBLIC_URL (the API's `logo_url`, customer emails), or null. */
export const logoUrl = (publicUrl: string, w: { logo_key: string | null }) => {
  const path = logoPath(w);
  return path ? `${publicUrl.replace(/\/+$/, '')}${path}` : null;
};

/** The logo's bytes and type for a PDF, or null (none, or its bytes are gone). */
export async function logoImage(storage: Pick<Storage, 'open'>, w: { logo_key: string | null; logo_type: string | null }): Promise<Buffer | null> {
  if (!w.logo_key) return null;
  const object = await storage.open(PUBLIC_BUCKET, w.logo_key);
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The type of the staged bytes: PNG or JPEG with a readable size, else a 400 naming `file`. */
async function checkLogo(file: IncomingFile): Promise<string> {
  if (file.tooLarge) refuse(`file must be at most ${LOGO_MAX_BYTES / (1024 * 1024)} MB`);
  if (file.staged.size === 0) refuse('file must not be empty');
  const { fileTypeFromFile } = await import('file-type');
  const mime = (await fileTypeFromFile(file.staged.file))?.mime as string | undefined;
  if (!mime || !(LOGO_TYPES as readonly string[]).includes(mime)) {
    refuse(`file must be a PNG or JPEG image${mime ? ` (its content is ${mime})` : ''}`);
  }
  if (!imageSize(mime as string, await fsp.readFile(file.staged.file))) refuse('file is not a readable image');
  return mime as string;
}

export function logoService(ctx: AppContext) {
  const { db } = ctx;
  const { storage, sweeper } = filesFor(ctx);

  /** Swaps the logo's key in the workspace row and queues the old bytes, in the caller's transaction. */
  async function swap(auth: AuthContext, next: { logo_key: string | null; logo_type: string | null }, view: (w: WorkspaceRow) => unknown) {
    return transact(db, auth, async (trx) => {
      const w = await findWorkspace(trx, auth.workspaceId);
      if (w?.logo_key) await queueDeletion(trx, auth.workspaceId, PUBLIC_BUCKET, w.logo_key);
      return view(await updateWorkspace(trx, auth.workspaceId, { ...next, updated_at: now() }));
    });
  }

  return {
    async set<T>(auth: AuthContext, file: IncomingFile | null, view: (w: WorkspaceRow) => T): Promise<T> {
      if (!file) return refuse('is required');
      const mime = await checkLogo(file);
      const key = newKey(auth.workspaceId, EXTENSION[mime]);
      await storage.put(file.staged, PUBLIC_BUCKET, key);
      try {
        const data = (await swap(auth, { logo_key: key, logo_type: mime }, view)) as T;
        await sweeper.run(); // committed: the old logo's bytes can go now
        return data;
      } catch (err) {
        await storage.remove(PUBLIC_BUCKET, key); // not committed: the new bytes go, the old logo stays
        throw err;
      }
    },

    async remove<T>(auth: AuthContext, view: (w: WorkspaceRow) => T): Promise<T> {
      const data = (await swap(auth, { logo_key: null, logo_type: null }, view)) as T;
      await sweeper.run();
      return data;
    },
  };
}
