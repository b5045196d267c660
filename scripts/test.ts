// `npm test`: the whole suite on SQLite, then again on PostgreSQL when
// TEST_POSTGRES_URL is set. On PostgreSQL every test file clones its own
// database from a template migrated once here (DESIGN convention 7).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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

/** Each part's failed tests with their errors, printed again when the whole run ends. */
const failed: { label: string; text: string }[] = [];

function run(label: string, env: Record<string, string>): boolean {
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  const failures = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fieldwork-test-')), 'failures.txt');
  // A file that hangs fails, named, after FILE_TIMEOUT_MS, instead of holding the run
  // until CI's own limit (the slowest file takes a few minutes).
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      `--test-timeout=${FILE_TIMEOUT_MS}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${path.join(root, 'scripts/failures-reporter.mjs')}`,
      `--test-reporter-destination=${failures}`,
      ...files,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
  );
  const text = fs.existsSync(failures) ? fs.readFileSync(failures, 'utf8').trim() : '';
  if (text || r.status !== 0) failed.push({ label, text: text || `exit code ${r.status} (no test failed: a file ended abnormally, see above)` });
  fs.rmSync(path.dirname(failures), { recursive: true, force: true });
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
// Last in the output, where a CI log's tail shows it.
for (const { label, text } of failed) console.log(`\n=== ${label}: failed ===\n${text}`);
process.exit(ok ? 0 : 1);
