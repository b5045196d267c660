import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { messageOf } from '../kernel/errors.ts';
import { connectS3, headObject, uploadFile } from '../storage/s3-storage.ts';
import { type Bucket, KEY_PATTERN, PRIVATE_BUCKET, PUBLIC_BUCKET } from '../storage/storage.ts';
import { CliError, jsonOption, print } from './common.ts';

// `fieldwork storage copy --from DIR --to s3://bucket/prefix` (E30, docs/operator.md
// "Object storage"): a STORAGE_DIR's files into a bucket, at the object keys the S3
// driver reads (`<prefix>/<bucket>/<key>`). The directory is only read. An object
// already there with the same size and SHA-256 is left as it is, so a second run, or
// one after an interruption, copies only what is missing (F253). Each object appears
// whole or not at all (S3 writes are atomic).

/** Files copied at once: a few requests in flight hide the store's latency without flooding it. */
const PARALLEL = 4;

interface Found {
  file: string;
  bucket: Bucket;
  key: string;
  size: number;
}

/** The files of `dir` the local driver wrote: `<bucket>/<key>`; staging and anything else is not a stored file. */
function storedFiles(dir: string): { found: Found[]; ignored: number } {
  const found: Found[] = [];
  let ignored = 0;
  for (const bucket of [PRIVATE_BUCKET, PUBLIC_BUCKET] as const) {
    const root = path.join(dir, bucket);
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      const key = path.relative(root, file).split(path.sep).join('/');
      if (!KEY_PATTERN.test(key)) {
        ignored++;
        continue;
      }
      found.push({ file, bucket, key, size: fs.statSync(file).size });
    }
  }
  return { found: found.sort((a, b) => a.file.localeCompare(b.file)), ignored };
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

export function storageCommand(): Command {
  const storage = new Command('storage').description('the file store (STORAGE_DIR or STORAGE_URL)');
  storage
    .command('copy')
    .description("copy a STORAGE_DIR's files into an S3-compatible bucket (S3_* settings); safe to run again")
    .addOption(new Option('--from <dir>', 'the STORAGE_DIR to copy from').makeOptionMandatory())
    .addOption(new Option('--to <url>', 'the bucket and prefix, s3://bucket/prefix, as STORAGE_URL will name it').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (opts: { from: string; to: string; json?: boolean }) => {
      let s3Config: ReturnType<typeof loadConfig>['s3'];
      try {
        s3Config = loadConfig({ ...process.env, STORAGE_URL: opts.to }).s3;
      } catch (err) {
        throw new CliError(`storage copy: ${messageOf(err).replace(/^STORAGE_URL: /, '--to: ')}`);
      }
      if (!s3Config) throw new CliError('storage copy: --to must be an s3:// URL');
      const from = path.resolve(opts.from);
      if (!fs.statSync(from, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`storage copy: ${opts.from} is not a directory`);
      const { found, ignored } = storedFiles(from);
      const s3 = await connectS3(s3Config);
      let copied = 0;
      let bytes = 0;
      try {
        let next = 0;
        const work = async () => {
          while (next < found.length) {
            const f = found[next++];
            const sha256 = await sha256Of(f.file);
            const there = await headObject(s3, f.bucket, f.key);
            if (there && there.size === f.size && there.sha256 === sha256) continue;
            await uploadFile(s3, f.file, f.bucket, f.key, sha256);
            copied++;
            bytes += f.size;
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, work));
      } catch (err) {
        throw new CliError(`storage copy to ${opts.to} failed after ${copied} files: ${messageOf(err)}; run it again to go on`);
      } finally {
        s3.client.destroy();
      }
      const already = found.length - copied;
      const notes = [already ? `${already} already there` : '', ignored ? `${ignored} other files under ${opts.from} left out` : ''].filter(Boolean);
      print(opts, {
        json: { copied, bytes },
        text: `Copied ${copied} files (${bytes} bytes) from ${from} to ${opts.to}${notes.length ? `; ${notes.join(', ')}` : ''}.`,
      });
    });
  return storage;
}
