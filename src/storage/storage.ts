import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

// The file store behind uploads (DESIGN: storage/). Object keys are always chosen
// by the server; client file names and paths never reach the store (D20).

/** SPEC "Upload link" `bucket`: private files are served signed, public ones openly. */
export const PRIVATE_BUCKET = 'workspaces';
export const PUBLIC_BUCKET = 'workspaces_pub';
export type Bucket = typeof PRIVATE_BUCKET | typeof PUBLIC_BUCKET;
export const isBucket = (value: string): value is Bucket => value === PRIVATE_BUCKET || value === PUBLIC_BUCKET;

/** Keys we create: `<workspace id>/<32 hex>[.<ext>]`. Every driver refuses anything else, so no key can escape its root or prefix. */
export const KEY_PATTERN = /^\d{1,10}\/[0-9a-f]{32}(\.[a-z0-9]{1,5})?$/;

export const newKey = (workspaceId: number, ext: string) => `${workspaceId}/${randomBytes(16).toString('hex')}${ext ? `.${ext}` : ''}`;

/** Bytes received into local staging, not yet visible in any bucket. */
export interface Staged {
  /** Local path of the staged bytes (type sniffing reads it). */
  readonly file: string;
  readonly size: number;
  readonly sha256: string;
  /** The source went past the size limit: what was kept is only a prefix. */
  readonly truncated: boolean;
}

export interface StoredObject {
  stream: Readable;
  size: number;
}

export interface Storage {
  /** Streams `source` into staging, hashing as it goes; at most `maxBytes` are kept. */
  stage(source: Readable, maxBytes: number): Promise<Staged>;
  /** Removes staged bytes that were not (or could not be) put; a no-op after `put`. */
  discard(staged: Staged): Promise<void>;
  /** Moves staged bytes to `bucket/key` (the only way bytes enter a bucket). */
  put(staged: Staged, bucket: Bucket, key: string): Promise<void>;
  /** Deletes `bucket/key`; a missing object is not an error. */
  remove(bucket: Bucket, key: string): Promise<void>;
  open(bucket: Bucket, key: string): Promise<StoredObject | null>;
  /** A URL for the object: signed with a 1-hour expiry when private, stable when public (D20). */
  url(bucket: Bucket, key: string): Promise<string>;
  /** Whether `expires` and `signature` (from a private `url`) are valid for `bucket/key` now. */
  verify(bucket: Bucket, key: string, expires: string | undefined, signature: string | undefined): Promise<boolean>;
  /** Loads what `url` needs, so `url` can then run inside a transaction (E11 answers are stored with the effect). */
  ready(): Promise<void>;
  /** Drops staging leftovers (a crash mid-upload) older than `olderThanMs`. */
  cleanStaging(olderThanMs: number): Promise<void>;
}
