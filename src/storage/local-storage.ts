import fsp from 'node:fs/promises';
import path from 'node:path';
import { StagedStorage } from './staging.ts';
import { type Bucket, KEY_PATTERN, type Staged, type StoredObject } from './storage.ts';

/**
 * The embedded driver (`STORAGE_DIR`, README Configuration): `<root>/<bucket>/<key>`, with
 * uploads staged under `<root>/.staging` and renamed into place (same filesystem,
 * so a file is either fully there or not at all).
 */
export class LocalStorage extends StagedStorage {
  private location(bucket: Bucket, key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key "${key}"`);
    return path.join(this.dir, bucket, key);
  }

  async put(staged: Staged, bucket: Bucket, key: string): Promise<void> {
    const target = this.location(bucket, key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(staged.file, target);
    this.placedFrom(staged);
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
}
