import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { filesUnder } from './upload-fixtures.ts';

// Every file rule is tested against both storage drivers (E30): the local directory and
// an S3-compatible bucket, served by s3rver on loopback inside the test process.
// TEST_STORAGE=local or TEST_STORAGE=s3 runs one of them only.

export type Driver = 'local' | 's3';
export const STORAGE_DRIVERS: Driver[] = process.env.TEST_STORAGE === 'local' || process.env.TEST_STORAGE === 's3' ? [process.env.TEST_STORAGE] : ['local', 's3'];

/** s3rver's fixed credentials: it checks every request's signature against them. */
const S3RVER_KEY = 'S3RVER';

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** What a server or a command needs to use `prefix` of the bucket (STORAGE_URL and S3_*). */
  env(prefix: string): Record<string, string>;
  /** The test's own client, to look into the bucket. */
  client: S3Client;
  /** Keys of every object under `prefix/`, without it, sorted. */
  keys(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-s3-'));
  const bucket = 'fieldwork-test';
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    client,
    env: (prefix) => ({
      STORAGE_URL: `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3RVER_KEY,
      S3_SECRET_ACCESS_KEY: S3RVER_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    async keys(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/`, ContinuationToken: token }));
        for (const o of page.Contents ?? []) keys.push(o.Key!.slice(prefix.length + 1));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async close() {
      client.destroy();
      server.httpServer.closeAllConnections();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** One test file's file store on one driver. */
export interface TestStore {
  driver: Driver;
  /** STORAGE_DIR: the files themselves (local) or only uploads in progress (s3). */
  dir: string;
  /** The settings to build the app with. */
  env: Record<string, string>;
  /** `<bucket>/<key>` of every stored object, staging excluded, sorted. */
  objects(): Promise<string[]>;
  /** Uploads in progress left in staging. */
  staging(): string[];
  close(): Promise<void>;
}

let prefixes = 0;

export async function testStore(driver: Driver): Promise<TestStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-files-'));
  const staging = () => filesUnder(path.join(dir, '.staging'));
  if (driver === 'local') {
    return {
      driver,
      dir,
      env: { STORAGE_DIR: dir },
      objects: async () =>
        filesUnder(dir)
          .map((f) => path.relative(dir, f))
          .filter((f) => !f.startsWith('.staging'))
          .sort(),
      staging,
      close: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const s3 = await startS3Server();
  const prefix = `tenant/${process.pid}-${++prefixes}`; // a prefix of more than one part, as operators may choose
  return {
    driver,
    dir,
    env: { STORAGE_DIR: dir, ...s3.env(prefix) },
    objects: () => s3.keys(prefix),
    staging,
    close: async () => {
      await s3.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
