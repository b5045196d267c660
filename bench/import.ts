// `npx tsx bench/import.ts`: E28's import of BENCH_ROWS (default 10,000) clients, each
// with a property address and a unique email, from one CSV file: the worker's own code
// (runImport: the file read from the store, checked row by row, written 250 rows per
// transaction with the progress), timed from the claim to `done`. SQLite by default;
// BENCH_DATABASE_URL=postgres://... (a scratch database created and dropped). Target:
// under 30 s on both. Prints its figures; bench/RESULTS.md is updated by hand.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { runImport } from '../src/modules/imports/import-run.ts';
import { findImport, insertImport } from '../src/modules/imports/imports.repo.ts';
import { newImport } from '../src/modules/imports/imports.service.ts';
import { createWorkspace } from '../src/modules/workspace/workspace.service.ts';
import { storageFromConfig } from '../src/storage/drivers.ts';
import { newKey, PRIVATE_BUCKET } from '../src/storage/storage.ts';
import { UrlSigner } from '../src/storage/url-signer.ts';
import { scratchDatabase } from './scratch.ts';

const rows = Number(process.env.BENCH_ROWS ?? 10_000);
const scratch = await scratchDatabase();
const files = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-bench-files-'));
const database = createDb(scratch.url);
try {
  await migrate(database);
  const { db } = database;
  const config = loadConfig({ DATABASE_URL: scratch.url, STORAGE_DIR: files });
  const storage = storageFromConfig(config, new UrlSigner(db), () => config.publicUrl);
  const { workspace } = await createWorkspace(db, { name: 'Import bench', owner: { email: 'bench@example.test' } });
  const header = 'First Name,Last Name,Email,Phone,Company,Street,City,State,Zip,Country\r\n';
  const lines = Array.from({ length: rows }, (_, i) => `First${i},Last${i},client${i}@example.test,555-${String(i).padStart(4, '0')},Co ${i % 97},${i} Main St,Town ${i % 50},CA,${String(90000 + (i % 999))},US\r\n`);
  const staged = await storage.stage(Readable.from([header, ...lines]), 20 * 1024 * 1024);
  const key = newKey(workspace.id, 'csv');
  await storage.put(staged, PRIVATE_BUCKET, key);
  const columns = ['first_name', 'last_name', 'email', 'phone', 'company', 'street', 'city', 'state', 'postal_code', 'country'];
  const row = await insertImport(db, { ...newImport(workspace.id, null, 'clients', false, columns, key), locked_by: 'bench', locked_until: new Date(Date.now() + 600_000).toISOString() });
  const started = performance.now();
  await runImport(db, storage, row.id, 'bench');
  const ms = performance.now() - started;
  const done = (await findImport(db, workspace.id, row.id))!;
  console.log(`import of ${rows} clients (${database.dialect}): ${(ms / 1000).toFixed(1)} s, ${Math.round(rows / (ms / 1000))} rows/s; status ${done.status}, created ${done.created}, skipped ${done.skipped}; load ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}`);
} finally {
  await database.close();
  await scratch.cleanup();
  fs.rmSync(files, { recursive: true, force: true });
}
