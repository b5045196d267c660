// `npx tsx bench/export.ts`: E29's workspace ZIP over BENCH_RECORDS (default 100,000)
// contacts and BENCH_FILE_MB (default 1,024) MB of files (BENCH_FILES files, default 64,
// sparse on disk: read as zeros, stored uncompressed in the ZIP), streamed by the export's
// own code (workspaceZip) into a sink that counts bytes. The process's RSS is sampled
// every 50 ms; the target is a peak under 200 MB. SQLite by default;
// BENCH_DATABASE_URL=postgres://... for PostgreSQL. Prints its figures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { workspaceZip } from '../src/modules/exports/workspace-zip.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { storageFromConfig } from '../src/storage/drivers.ts';
import { newKey, PRIVATE_BUCKET } from '../src/storage/storage.ts';
import { UrlSigner } from '../src/storage/url-signer.ts';
import { scratchDatabase } from './scratch.ts';

const records = Number(process.env.BENCH_RECORDS ?? 100_000);
const fileCount = Number(process.env.BENCH_FILES ?? 64);
const fileMb = Number(process.env.BENCH_FILE_MB ?? 1024);
const scratch = await scratchDatabase();
const files = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-bench-files-'));
const database = createDb(scratch.url);
try {
  await migrate(database);
  const { db, dialect } = database;
  const config = loadConfig({ DATABASE_URL: scratch.url, STORAGE_DIR: files });
  const storage = storageFromConfig(config, new UrlSigner(db), () => config.publicUrl);
  const { workspace } = await createWorkspace(db, { name: 'Export bench', owner: { email: 'bench@example.test' } });
  const at = new Date().toISOString();
  const series = dialect === 'postgres' ? sql`generate_series(1, ${records}) as n(i)` : sql`(with recursive n(i) as (select 1 union all select i + 1 from n where i < ${records}) select i from n) as n`;
  await sql`insert into contacts (workspace_id, first_name, last_name, email, type, info, custom_fields, created_at, updated_at)
    select ${workspace.id}, 'First' || n.i, 'Last' || n.i, 'c' || n.i || '@example.test', 'customer', '{}', '{}', ${at}, ${at} from ${series}`.execute(db);
  const size = Math.floor((fileMb * 1024 * 1024) / fileCount);
  for (let i = 0; i < fileCount; i++) {
    const key = newKey(workspace.id, 'bin');
    const file = path.join(files, PRIVATE_BUCKET, key);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, size); // sparse: no disk used, read as zeros
    await db.insertInto('stored_files').values({ workspace_id: workspace.id, bucket: PRIVATE_BUCKET, path: key, sha256: `${i}`.padStart(64, '0'), size, mime_type: 'application/octet-stream', original_file_name: `scan-${i}.bin`, meta: '{}', created_at: at }).execute();
  }
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  let bytes = 0;
  const started = performance.now();
  const zip = workspaceZip(db, storage, workspace.id);
  await pipeline(
    zip.stream,
    new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    }),
  );
  const counts = await zip.counts;
  clearInterval(sampler);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    `export (${dialect}): ${counts.contacts} contacts, ${counts.files} files, ZIP ${mb(bytes)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s; RSS before ${mb(before)} MB, peak ${mb(peak)} MB; load ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}`,
  );
} finally {
  await database.close();
  await scratch.cleanup();
  fs.rmSync(files, { recursive: true, force: true });
}
