import { Command } from 'commander';
import { jsonOption, print, withDatabase } from './common.ts';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply every pending database migration')
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      // withDatabase migrates before anything else, so its `applied` is this command's result.
      const applied = await withDatabase(async (_db, names) => names);
      print(opts, {
        json: { migrations: applied },
        text: applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}` : 'Database is up to date.',
      });
    });
}
