import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Bucket, PUBLIC_BUCKET, type Staged, type Storage, type StoredObject } from './storage.ts';
import { SIGNED_URL_TTL_SECONDS, type UrlSigner } from './url-signer.ts';

const STAGING = '.staging';

/**
 * What every driver does the same way: uploads are staged on local disk under
 * `<dir>/.staging` (type sniffing reads the file; the size cap holds while
 * streaming), and URLs are ours, signed by D20's key and served by /files (F250).
 * A driver adds where the bytes then live: `put`, `open`, `remove`.
 */
export abstract class StagedStorage implements Storage {
  protected readonly dir: string;
  private readonly placed = new WeakSet<Staged>();

  constructor(
    dir: string,
    private readonly signer: UrlSigner,
    /** Read on every call: main.ts learns the real port (PORT=0) only after listen. */
    private readonly publicUrl: () => string,
  ) {
    this.dir = path.resolve(dir);
  }

  abstract put(staged: Staged, bucket: Bucket, key: string): Promise<void>;
  abstract remove(bucket: Bucket, key: string): Promise<void>;
  abstract open(bucket: Bucket, key: string): Promise<StoredObject | null>;

  /** Called by `put` once the staged bytes are in their bucket and gone from staging. */
  protected placedFrom(staged: Staged): void {
    this.placed.add(staged);
  }

  async stage(source: Readable, maxBytes: number): Promise<Staged> {
    const dir = path.join(this.dir, STAGING);
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
    if (!this.placed.has(staged)) await fsp.rm(staged.file, { force: true });
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
    const dir = path.join(this.dir, STAGING);
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
