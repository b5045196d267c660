import fs from 'node:fs';
import path from 'node:path';
import { SQLite } from '../db/sqlite-driver.ts';
import { Command, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { CliError, jsonOption, print } from './common.ts';

// `fieldwork backup --to FILE` (docs/operations.md "Backup"): a consistent copy of
// a live SQLite database through SQLite's online backup API, while the server keeps
// writing. The pages are copied in one step: under WAL that is one read snapshot,
// which writers do not wait for, and a write landing mid-copy cannot make the
// backup start over again and again. The copy is written beside FILE and renamed
// into place, so FILE is never half-written. PostgreSQL has its own tools.

const ALL_PAGES = 0x7fffffff;

export function backupCommand(): Command {
  return new Command('backup')
    .description('copy the SQLite database to FILE while the service runs (PostgreSQL: use pg_dump)')
    .addOption(new Option('--to <file>', 'where the copy goes').makeOptionMandatory())
    .addOption(jsonOption())
    .action(async (opts: { to: string; json?: boolean }) => {
      const { databaseUrl } = loadConfig();
      if (!databaseUrl.startsWith('sqlite:')) {
        throw new CliError('backup copies SQLite databases only; on PostgreSQL use pg_dump, e.g. pg_dump --format=custom --file=FILE "$DATABASE_URL"');
      }
      const source = databaseUrl.slice('sqlite:'.length);
      if (source === ':memory:') throw new CliError('backup: DATABASE_URL is an in-memory database; there is nothing on disk to copy');
      if (!fs.existsSync(source)) throw new CliError(`backup: no database at ${source}`);
      const target = path.resolve(opts.to);
      if (target === path.resolve(source)) throw new CliError('backup: --to is the database itself');
      const partial = `${target}.partial-${process.pid}`;
      try {
        fs.closeSync(fs.openSync(partial, 'w'));
      } catch (err) {
        throw new CliError(`backup: cannot write ${opts.to}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const db = new SQLite(source, { fileMustExist: true });
      try {
        db.pragma('busy_timeout = 5000');
        await db.backup(partial, { progress: () => ALL_PAGES });
        fs.renameSync(partial, target);
      } catch (err) {
        fs.rmSync(partial, { force: true });
        throw new CliError(`backup failed: ${(err as Error).message}`);
      } finally {
        db.close();
      }
      const bytes = fs.statSync(target).size;
      print(opts, { json: { backup: { path: target, bytes } }, text: `Backed up ${source} to ${target} (${bytes} bytes).` });
    });
}
