import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { StagedStorage } from './staging.ts';
import { type Bucket, KEY_PATTERN, type Staged, type StoredObject } from './storage.ts';
import type { UrlSigner } from './url-signer.ts';

// E30: files in an S3-compatible bucket (`STORAGE_URL=s3://bucket/prefix`), so API
// processes on several machines serve the same files. Object keys are
// `<prefix>/<bucket>/<key>`: the layout of STORAGE_DIR under a prefix, so
// `fieldwork storage copy` maps a directory onto a bucket path for path (F253).
// The SDK (AWS SDK v3) loads at the first use of the bucket, never without STORAGE_URL.

type ClientModule = typeof import('@aws-sdk/client-s3');
type StorageModule = typeof import('@aws-sdk/lib-storage');

/** The SDK's modules and one client for the configured store. */
export interface S3Connection {
  sdk: ClientModule;
  lib: StorageModule;
  client: S3Client;
  config: S3Config;
}

export async function connectS3(config: S3Config): Promise<S3Connection> {
  const [sdk, lib] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  const client = new sdk.S3Client({
    region: config.region,
    endpoint: config.endpoint ?? undefined,
    forcePathStyle: config.forcePathStyle,
    credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
    // F251: checksums only where S3 requires them. The SDK's default since 2025 (a CRC
    // on every upload, sent as aws-chunked trailers) is refused by many S3-compatible stores.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { sdk, lib, client, config };
}

/** The object key of `bucket/key` under the configured prefix. */
export function objectKey(config: S3Config, bucket: Bucket, key: string): string {
  if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key "${key}"`);
  return config.prefix ? `${config.prefix}/${bucket}/${key}` : `${bucket}/${key}`;
}

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Streams a local file into `bucket/key` (lib-storage: one request up to 5 MiB, a
 * multipart upload above), with its SHA-256 as metadata so a copy can tell an
 * object it already holds (F253).
 */
export async function uploadFile(s3: S3Connection, file: string, bucket: Bucket, key: string, sha256: string): Promise<void> {
  const upload = new s3.lib.Upload({
    client: s3.client,
    params: { Bucket: s3.config.bucket, Key: objectKey(s3.config, bucket, key), Body: fs.createReadStream(file), Metadata: { sha256 } },
    queueSize: 1, // F251: one part in memory at a time; an upload is at most 5 MB (SPEC Limits)
  });
  await upload.done();
}

/** Size and recorded SHA-256 of `bucket/key`, or null when there is no such object. */
export async function headObject(s3: S3Connection, bucket: Bucket, key: string): Promise<{ size: number; sha256: string | null } | null> {
  try {
    const head = await s3.client.send(new s3.sdk.HeadObjectCommand({ Bucket: s3.config.bucket, Key: objectKey(s3.config, bucket, key) }));
    return { size: head.ContentLength ?? 0, sha256: head.Metadata?.sha256 ?? null };
  } catch (err) {
    if (notFound(err)) return null;
    throw err;
  }
}

/** The object-storage driver: staging and URLs as on disk (F250), the bytes in the bucket. */
export class S3Storage extends StagedStorage {
  private connection: Promise<S3Connection> | null = null;

  constructor(
    dir: string,
    signer: UrlSigner,
    publicUrl: () => string,
    private readonly config: S3Config,
  ) {
    super(dir, signer, publicUrl);
  }

  private s3(): Promise<S3Connection> {
    this.connection ??= connectS3(this.config).catch((err) => {
      this.connection = null;
      throw err;
    });
    return this.connection;
  }

  async put(staged: Staged, bucket: Bucket, key: string): Promise<void> {
    objectKey(this.config, bucket, key); // a bad key fails before any byte moves
    await uploadFile(await this.s3(), staged.file, bucket, key, staged.sha256);
    this.placedFrom(staged);
    await fsp.rm(staged.file, { force: true });
  }

  async remove(bucket: Bucket, key: string): Promise<void> {
    const objectName = objectKey(this.config, bucket, key);
    const s3 = await this.s3();
    await s3.client.send(new s3.sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: objectName })); // a missing object is no error in S3
  }

  async open(bucket: Bucket, key: string): Promise<StoredObject | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const s3 = await this.s3();
    try {
      const object = await s3.client.send(new s3.sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: objectKey(this.config, bucket, key) }));
      if (!(object.Body instanceof Readable)) throw new Error('the S3 client returned no stream');
      return { stream: object.Body, size: object.ContentLength ?? 0 };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }
}
