// `npm test`: the whole suite on SQLite, then again on PostgreSQL when
// TEST_POSTGRES_URL is set. On PostgreSQL every test file clones its own
// database from a template migrated once here (DESIGN convention 7).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createDb } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);
const files = (only.length ? only : ['src', 'test', 'packages/client/test', 'packages/app/test'])
  .flatMap((p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p, { recursive: true }).map((f) => path.join(p, String(f))) : [p]))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();

// The app's browser tests run against its production build: built once here
// (when its sources changed), not once per file.
if (files.some((f) => f.startsWith('packages/app/test'))) {
  const built = spawnSync(process.execPath, ['scripts/build-app.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}

const FILE_TIMEOUT_MS = 15 * 60_000;

function run(label: string, env: Record<string, string>): boolean {
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  // A file that hangs fails, named, after FILE_TIMEOUT_MS, instead of holding the run
  // until CI's own limit (the slowest file takes a few minutes).
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${FILE_TIMEOUT_MS}`, '--test-reporter=spec', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return r.status === 0;
}

const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

let ok = run('SQLite', { TEST_DB: 'sqlite' });

const pgUrl = process.env.TEST_POSTGRES_URL;
if (pgUrl) {
  const template = `fieldwork_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database "${template}"`);
  const database = createDb(withDb(pgUrl, template));
  await migrate(database);
  await database.close();
  ok = run('PostgreSQL', { TEST_DB: 'postgres', TEST_PG_TEMPLATE: template }) && ok;
  await admin.query(`drop database if exists "${template}" with (force)`);
  await admin.end();
} else {
  console.log('\nTEST_POSTGRES_URL is not set: PostgreSQL run skipped.');
}
process.exit(ok ? 0 : 1);
