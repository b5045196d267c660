// `fieldwork <command>` (docs/operator.md "Command line"). Each command group lives in
// its own file: adding one is one import and one `addCommand` line below.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { messageOf } from '../kernel/errors.ts';
import { backupCommand } from './backup.ts';
import { type Io, processIo, setIo } from './common.ts';
import { customFieldCommand } from './custom-field.ts';
import { dailyCommand } from './daily.ts';
import { inboxCommand } from './inbox.ts';
import { keyCommand } from './key.ts';
import { messagesCommand } from './messages.ts';
import { migrateCommand } from './migrate.ts';
import { exportCommand, importCommand } from './moving.ts';
import { storageCommand } from './storage.ts';
import { userCommand } from './user.ts';
import { webhookCommand } from './webhook.ts';
import { workerCommand } from './worker.ts';
import { workspaceCommand } from './workspace.ts';

export function buildProgram(io: Io = processIo): Command {
  const program = new Command('fieldwork').description('Fieldwork operator commands');
  program.addCommand(migrateCommand());
  program.addCommand(workspaceCommand());
  program.addCommand(userCommand());
  program.addCommand(keyCommand());
  program.addCommand(inboxCommand());
  program.addCommand(workerCommand());
  program.addCommand(webhookCommand());
  program.addCommand(customFieldCommand());
  program.addCommand(messagesCommand());
  program.addCommand(backupCommand());
  program.addCommand(dailyCommand());
  program.addCommand(storageCommand());
  program.addCommand(importCommand());
  program.addCommand(exportCommand());
  // addCommand() does not pass settings down, so every level gets them here:
  // errors are thrown back to main() instead of exiting, and output goes to `io`.
  const configure = (cmd: Command) => {
    cmd.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
    cmd.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs one command line; returns the exit code. Errors never print a stack. */
export async function main(argv: string[] = process.argv, io: Io = processIo): Promise<number> {
  setIo(io);
  try {
    await buildProgram(io).parseAsync(argv);
    return 0;
  } catch (err) {
    // Commander has already written its own message (bad flag, missing option, help).
    if (err instanceof CommanderError) return err.exitCode;
    io.err(`error: ${messageOf(err)}\n`);
    return 1;
  } finally {
    setIo(processIo);
  }
}

// Run when started directly (`tsx src/cli/index.ts`); bin/fieldwork.js calls main() itself.
const entry = (() => {
  try {
    return process.argv[1] ? pathToFileURL(fs.realpathSync(process.argv[1])).href : '';
  } catch {
    return '';
  }
})();
if (import.meta.url === entry) process.exitCode = await main();
