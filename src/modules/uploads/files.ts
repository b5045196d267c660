import type { AppContext } from '../../http/context.ts';
import { storageFromConfig } from '../../storage/drivers.ts';
import type { Storage } from '../../storage/storage.ts';
import { Sweeper } from '../../storage/sweeper.ts';
import { UrlSigner } from '../../storage/url-signer.ts';

/** One app's file store and its sweeper. */
export interface Files {
  storage: Storage;
  sweeper: Sweeper;
}

const byContext = new WeakMap<AppContext, Files>();

/** The uploads routes (under /api/v1) and the file routes (under /files) share one instance per app. */
export function filesFor(ctx: AppContext): Files {
  let files = byContext.get(ctx);
  if (!files) {
    const storage = storageFromConfig(ctx.config, new UrlSigner(ctx.db), () => ctx.config.publicUrl);
    files = { storage, sweeper: new Sweeper(ctx.db, storage) };
    byContext.set(ctx, files);
  }
  return files;
}
