import type { Config } from '../config.ts';
import { LocalStorage } from './local-storage.ts';
import { S3Storage } from './s3-storage.ts';
import type { Storage } from './storage.ts';
import type { UrlSigner } from './url-signer.ts';

/** The configured driver (E30): a bucket when STORAGE_URL is set (STORAGE_DIR then holds only uploads in progress), else STORAGE_DIR. */
export function storageFromConfig(config: Pick<Config, 'storageDir' | 's3'>, signer: UrlSigner, publicUrl: () => string): Storage {
  return config.s3 ? new S3Storage(config.storageDir, signer, publicUrl, config.s3) : new LocalStorage(config.storageDir, signer, publicUrl);
}
