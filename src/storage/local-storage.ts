import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Bucket, PUBLIC_BUCKET, type Staged, type Storage, type StoredObject } from './storage.ts';
import { SIGNED_URL_TTL_SECONDS, type UrlSigner } from './url-signer.ts';

/** Keys we create: `<workspace id>/<32 hex>[.<ext>]`. Anything else is refused, so no path can escape the root. */
export const KEY_PATTERN = /^\d{1,10}\/[0-9a-f]{32}(\.[a-z0-9]{1,5})?$/;

export const newKey = (workspaceId: number, ext: string) => `${workspaceId}/${randomBytes(16).toString('hex')}${ext ? `.${ext}` : ''}`;

const STAGING = '.staging';

/**
 * The embedded driver (`STORAGE_DIR`, README Configuration): `<root>/<bucket>/<key>`, with
 * uploads staged under `<root>/.staging` and renamed into place (same filesystem,
 * so a file is either fully there or not at all).
 */
export class LocalStorage implements Storage {
  private readonly root: string;
  private readonly moved = new WeakSet<Staged>();

  constructor(
    root: string,
    private readonly signer: UrlSigner,
    /** Read on every call: main.ts learns the real port (PORT=0) only after listen. */
    private readonly publicUrl: () => string,
  ) {
    this.root = path.resolve(root);
  }

  private location(bucket: Bucket, key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key "${key}"`);
    return path.join(this.root, bucket, key);
  }

  async stage(source: Readable, maxBytes: number): Promise<Staged> {
    const dir = path.join(this.root, STAGING);
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${randomBytes(16).toString('hex')}.part`);
    const hash = createHash('sha256');
    let size = 0;
    let truncated = false;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        // The cap holds while streaming: bytes past it are never written (SPEC Limits).
        if (size + chunk.length > maxBytes) {
          truncated = true;
          chunk = chunk.subarray(0, Math.max(0, maxBytes - size));
        }
        size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, fs.createWriteStream(file, { flags: 'wx' }));
    } catch (err) {
      await fsp.rm(file, { force: true });
      throw err;
    }
    return { file, size, sha256: hash.digest('hex'), truncated };
  }

  async discard(staged: Staged): Promise<void> {
    if (!this.moved.has(staged)) await fsp.rm(staged.file, { force: true });
  }

  async put(staged: Staged, bucket: Bucket, key: string): Promise<void> {
    const target = this.location(bucket, key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(staged.file, target);
    this.moved.add(staged);
  }

  async remove(bucket: Bucket, key: string): Promise<void> {
    await fsp.rm(this.location(bucket, key), { force: true });
  }

  async open(bucket: Bucket, key: string): Promise<StoredObject | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const file = this.location(bucket, key);
    try {
      const handle = await fsp.open(file, 'r');
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), size };
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Loads what `url` needs from the database, so `url` can then run inside a transaction (E11 answers). */
  async ready(): Promise<void> {
    await this.signer.key();
  }

  async url(bucket: Bucket, key: string): Promise<string> {
    const base = this.publicUrl();
    if (bucket === PUBLIC_BUCKET) return `${base}/files/public/${key}`; // D20: stable, no signature
    const expires = Math.floor(Date.now() / 1000) + SIGNED_URL_TTL_SECONDS;
    const signature = await this.signer.sign(bucket, key, expires);
    return `${base}/files/${key}?expires=${expires}&signature=${signature}`;
  }

  verify(bucket: Bucket, key: string, expires: string | undefined, signature: string | undefined): Promise<boolean> {
    return this.signer.verify(bucket, key, expires, signature);
  }

  async cleanStaging(olderThanMs: number): Promise<void> {
    const dir = path.join(this.root, STAGING);
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      return;
    }
    const cutoff = Date.now() - olderThanMs;
    for (const name of names) {
      const file = path.join(dir, name);
      const stat = await fsp.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) await fsp.rm(file, { force: true });
    }
  }
}
